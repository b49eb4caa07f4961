/**
 * What the batching experiment emits (lab/metric-catalog.ts): its charts select `msgsPerSec`
 * and `deviceBytesPerMsg` through these declarations.
 *
 * Labels: `store` (loglab's log one record per append, loglab's appendBatch, or Kafka v2
 * batches in the batched log), `codec`, `batchSize`, `messageBytes`, `body` (`json`, `random`),
 * `policy` (appends only), `workload` (the charts' facet: size, body and policy in words),
 * `cache` and `mode` (timings).
 */
import { type ChartDef, byLabel, chart, plot } from '../../lab/chart-spec.js';
import { declareMetrics } from '../../lab/metric-catalog.js';

const MESSAGES = ['store', 'codec', 'batchSize', 'messageBytes', 'body', 'workload'];
const APPENDS = [...MESSAGES, 'policy'];
const READS = [...MESSAGES, 'cache', 'mode'];

export const BATCHING_METRICS = declareMetrics('batching', {
  msgsPerSec: { unit: 'msgs/s', class: 'timing', direction: 'higher', labels: APPENDS },
  /** Over loglab's one-record appends of the same messages, round by round. */
  vsAppend: { unit: 'ratio', class: 'timing', direction: 'higher', ratio: true, labels: APPENDS },
  // The disk's counters are the whole disk's, after the kernel and the device had their say.
  deviceBytesPerMsg: { unit: 'B/msg', class: 'measurement', direction: 'lower', labels: APPENDS },
  /** What the code wrote for a fixed set of messages: log, indexes, recovery point. */
  writtenBytesPerMsg: { unit: 'B/msg', class: 'counter', direction: 'lower', labels: MESSAGES },
  indexBytesPerGiB: { unit: 'B', class: 'counter', direction: 'lower', labels: MESSAGES },
  /** Message bytes over the bytes of the log file holding them. */
  compressionRatio: { unit: 'ratio', class: 'counter', direction: 'higher', labels: MESSAGES },
  encodeCpuNsPerMsg: { unit: 'ns', class: 'timing', direction: 'lower', labels: MESSAGES },
  decodeCpuNsPerMsg: { unit: 'ns', class: 'timing', direction: 'lower', labels: MESSAGES },
  readLatencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: READS },
  /** Bytes one lookup read: headers stepped over and the whole batch holding the record. */
  readBytesPerRead: { unit: 'B', class: 'counter', direction: 'lower', labels: MESSAGES },
  /** Records decompressed and decoded to serve one: the whole batch. */
  recordsDecodedPerRead: {
    unit: 'records',
    class: 'counter',
    direction: 'lower',
    labels: MESSAGES,
  },
});

/** A line per store and codec against messages per batch, a facet per message size, body and policy. */
const BATCH_SIZE = byLabel('batchSize', 'messages per batch');
const BATCHING_LINES = {
  x: BATCH_SIZE,
  series: ['store', 'codec'],
  seriesTitle: 'store · codec',
  facet: { field: 'workload', title: 'messages, policy' },
  mark: 'line',
} as const;
/** Its charts (lab/chart-spec.ts), in report order; each plots a quantity declared above. */
export const BATCHING_CHARTS: readonly ChartDef[] = [
  chart(
    'bytes-per-message',
    'Bytes reaching the device per message, against batch size',
    "Lower is better: one line per store and codec; loglab's one-record appends are the point " +
      'at 1; hollow marks are the disk models replaying the same writes.',
    plot(BATCHING_METRICS.deviceBytesPerMsg, {
      yTitle: 'device bytes per message',
      ...BATCHING_LINES,
    }),
  ),
  chart(
    'throughput',
    'Messages appended per second, against batch size',
    'Higher is faster: one line per store and codec, one facet per message size, body and ' +
      'policy; under always each batch waits for one fdatasync.',
    plot(BATCHING_METRICS.msgsPerSec, { yTitle: 'messages per second', ...BATCHING_LINES }),
  ),
];
