/**
 * What the crash-safety experiment emits (lab/metric-catalog.ts). How many seeded iterations fit
 * in the time budget is the machine's speed, so the counts of work done are measurements, though
 * each iteration replays exactly. What the code promises is a counter whatever the iteration
 * count: no broken promise under any policy, and no acknowledged message lost under always or
 * group. Its value is 0, and compare fails on any other, which a measurement (never gated) would
 * let through.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const COUNT = { class: 'measurement', labels: ['policy'] } as const;

export const CRASH_SAFETY_METRICS = declareMetrics('crash-safety', {
  iterations: { unit: 'count', direction: 'informational', ...COUNT, title: 'iterations' },
  crashes: { unit: 'count', direction: 'informational', ...COUNT, title: 'simulated power cuts' },
  faultsInjected: { unit: 'count', direction: 'informational', ...COUNT, title: 'faults injected' },
  ackedChecked: {
    unit: 'msgs',
    direction: 'informational',
    ...COUNT,
    title: 'acknowledged messages checked',
  },
  /** Under none: the page cache's loss, decided by when the power cuts fell. */
  lost: { unit: 'msgs', direction: 'lower', ...COUNT, title: 'acknowledged messages lost' },
  /** Under always and group: the promise, 0. */
  lostAcknowledged: {
    quantity: 'lost',
    unit: 'msgs',
    direction: 'lower',
    class: 'counter',
    labels: ['policy'],
    title: 'acknowledged messages lost',
  },
  violations: {
    unit: 'count',
    direction: 'lower',
    class: 'counter',
    labels: ['policy'],
    title: 'broken promises',
  },
  lossWindowMsgs: { unit: 'msgs', direction: 'lower', ...COUNT, title: 'most lost in one crash' },
});
