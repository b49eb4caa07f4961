/**
 * What the crash-safety experiment emits (lab/metric-catalog.ts). How many seeded iterations fit
 * in the time budget is the machine's speed: every count is a measurement, though each
 * iteration replays exactly.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const COUNT = { class: 'measurement', labels: ['policy'] } as const;

export const CRASH_SAFETY_METRICS = declareMetrics('crash-safety', {
  iterations: { unit: 'count', direction: 'informational', ...COUNT },
  crashes: { unit: 'count', direction: 'informational', ...COUNT },
  faultsInjected: { unit: 'count', direction: 'informational', ...COUNT },
  ackedChecked: { unit: 'msgs', direction: 'informational', ...COUNT },
  lost: { unit: 'msgs', direction: 'lower', ...COUNT },
  violations: { unit: 'count', direction: 'lower', ...COUNT },
  lossWindowMsgs: { unit: 'msgs', direction: 'lower', ...COUNT },
});
