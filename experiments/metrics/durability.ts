/**
 * What the durability experiment emits (lab/metric-catalog.ts): its charts select `msgsPerSec`,
 * `sendLatencyNs`, `msgsPerFsync` and the open-loop latencies through these declarations.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';
import { openLoopDeclarations } from './open-loop.js';

const SERIES = ['policy', 'maxDelayMs', 'syncMode', 'producers'];

export const DURABILITY_METRICS = declareMetrics('durability', {
  msgsPerSec: {
    unit: 'msgs/s',
    class: 'timing',
    direction: 'higher',
    labels: SERIES,
    title: 'throughput',
  },
  sendLatencyNs: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: SERIES,
    title: 'send latency',
  },
  // How far acknowledgements run ahead of the syncs is up to the scheduler and the disk.
  lossWindowMsgs: {
    unit: 'msgs',
    class: 'measurement',
    direction: 'lower',
    labels: SERIES,
    title: 'acknowledged, not yet synced (most at once)',
  },
  // A measurement under every policy: a group's size is timing's, and under `always` the
  // recovery points and preallocation syncs are shared by however many messages the time-based
  // run reached (two quick reruns differed by more than 5%).
  msgsPerFsync: {
    unit: 'msgs',
    class: 'measurement',
    direction: 'higher',
    labels: SERIES,
    title: 'messages per fsync',
  },
  // Ratios of two configurations' rates in the same interleaved rounds: compare gates them.
  groupVsAlways: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['producers'],
    title: 'group commit over always',
  },
  threadPoolVsInline: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['policy', 'producers'],
    title: 'thread-pool syncs over inline',
  },
  // How busy the one JavaScript thread was: the scheduler's, not the code's, to decide.
  loopBusyShare: {
    unit: 'ratio',
    class: 'measurement',
    direction: 'informational',
    labels: SERIES,
    title: 'event loop busy (share of the round)',
  },
  dirtyBytes: {
    unit: 'B',
    class: 'measurement',
    direction: 'informational',
    labels: SERIES,
    title: 'dirty page cache on the machine',
  },
  ...openLoopDeclarations(SERIES),
});
