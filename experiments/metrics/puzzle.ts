/**
 * What the puzzle experiment emits (lab/metric-catalog.ts): its charts select `msgsPerSec`,
 * `sendLatencyNs` and the open-loop latencies through these declarations.
 */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';
import { openLoopChart, openLoopDeclarations } from './open-loop.js';

const SERIES = ['design', 'policy', 'comparison', 'deletes', 'variant'];
const DEVICE = { class: 'measurement', direction: 'lower', labels: SERIES } as const;

export const PUZZLE_METRICS = declareMetrics('puzzle', {
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
  // The disk's counters are the whole disk's, after the kernel and the device had their say.
  deviceBytesPerMsg: { unit: 'B/msg', ...DEVICE, title: 'device bytes per message' },
  deviceIosPerMsg: { unit: 'I/Os/msg', ...DEVICE, title: 'device writes per message' },
  deviceFlushesPerMsg: {
    unit: 'flushes/msg',
    ...DEVICE,
    title: 'device cache flushes per message',
  },
  /** Design A syncing each write and delete itself: the code decides. */
  fsyncsPerMsg: {
    unit: 'fsyncs/msg',
    class: 'counter',
    direction: 'lower',
    labels: SERIES,
    title: 'fsyncs per message',
  },
  /** Group commit's batches and design B's head saves (every 1,000 deletes or 1 s): timing's. */
  sharedFsyncsPerMsg: {
    quantity: 'fsyncsPerMsg',
    unit: 'fsyncs/msg',
    ...DEVICE,
    title: 'fsyncs per message',
  },
  ratioBA: {
    unit: 'ratio',
    class: 'timing',
    direction: 'higher',
    ratio: true,
    labels: ['comparison'],
    title: 'throughput, B over A',
  },
  ...openLoopDeclarations(SERIES),
});

/**
 * The puzzle's comparisons; each category names the guarantee it compares under, how deletes are
 * kept included. Design B saving its head at each delete is a series of its own (`variant`).
 */
const COMPARISON = byLabel('comparison', 'comparison: the guarantee', 'nominal');
const PUZZLE_SERIES = 'design (A = slot file, B = log)';
/** The puzzle's legends say which design is which in every entry, not only in the title. */
const PUZZLE_DESIGNS = { design: { A: 'A: slot file', B: 'B: log' } };
/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const PUZZLE_CHARTS: readonly ChartDef[] = [
  chart(
    'throughput',
    'Messages stored per second: three comparisons, each under its guarantee',
    'Higher is faster: within each guarantee, A (the slot file) stands beside B (the log); ' +
      'hollow marks are what the disk models predict for the same writes.',
    plot(PUZZLE_METRICS.msgsPerSec, {
      yTitle: 'throughput',
      x: COMPARISON,
      series: ['design', 'variant'],
      seriesTitle: PUZZLE_SERIES,
      valueNames: PUZZLE_DESIGNS,
      mark: 'bar',
    }),
  ),
  chart(
    'send-latency',
    'Latency of one send, by comparison and guarantee',
    'Lower is better: the median time from a send to its acknowledgement, A (the slot file) ' +
      'beside B (the log) under each guarantee.',
    plot(PUZZLE_METRICS.sendLatencyNs, {
      yTitle: 'median send latency',
      x: COMPARISON,
      series: ['design', 'variant'],
      seriesTitle: PUZZLE_SERIES,
      valueNames: PUZZLE_DESIGNS,
      mark: 'bar',
    }),
  ),
  openLoopChart(
    PUZZLE_METRICS.openLoopLatencyNs,
    'Send latency from the intended send time against offered load (open loop)',
    ['design', 'policy'],
    `${PUZZLE_SERIES} · policy`,
  ),
];
