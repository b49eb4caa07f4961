/**
 * What `loglab bench storage` emits (lab/metric-catalog.ts), its fio and Kafka comparisons
 * included (bench/fio-seq-sync.ts, bench/storage-kafka.ts). The bench builds its figures with
 * lab/metric.ts; the context refuses one this catalog does not declare, and the registry test
 * reads the catalog for the figures compare gates: the within-run ratios.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';

const PAIR = ['policy', 'cache'];
const RATE = { class: 'timing', direction: 'higher' } as const;
/** loglab's rate over another loop's in the same rounds, taking turns: the machine divides out. */
const OVER = { unit: 'ratio', class: 'timing', direction: 'higher', ratio: true } as const;
const BATCHES = ['policy', 'cache', 'segmentBytes', 'records', 'recordBytes'];

const LOOKUP = ['cache', 'logBytes'];

/**
 * The declarations, apart from the catalog: the hot-path bench (bench/hot-paths.ts) emits some
 * of the same figures under its own id and declares them from here.
 */
export const BENCH_STORAGE_DECLARATIONS = {
  ratePerSec: {
    unit: 'ops/s',
    ...RATE,
    labels: [...PAIR, 'producers', 'syncMode', 'tool'],
  },
  asyncRatePerSec: { unit: 'ops/s', ...RATE, labels: ['policy', 'producers'] },
  rawFsRatePerSec: { unit: 'ops/s', ...RATE, labels: PAIR },
  checksummedFsRatePerSec: { unit: 'ops/s', ...RATE, labels: PAIR },
  preallocatedFsRatePerSec: { unit: 'ops/s', ...RATE, labels: PAIR },
  bytesPerSec: { unit: 'B/s', ...RATE, labels: BATCHES },
  ownLogBatchedBytesPerSec: { unit: 'B/s', ...RATE, labels: BATCHES },
  vsRawFs: { ...OVER, labels: PAIR },
  vsChecksummedFs: { ...OVER, labels: PAIR },
  vsPreallocatedFs: { ...OVER, labels: PAIR },
  // Two reference loops, neither of them loglab: where the ceiling lies, not a quality.
  checksummedFsVsRawFs: { ...OVER, direction: 'informational', labels: PAIR },
  vsAlways: { ...OVER, labels: ['cache', 'producers', 'syncMode', 'directWrites'] },
  vsFioSeqSync: { ...OVER, labels: ['policy', 'syncMode'] },
  vsNodeThreadPoolSync: { ...OVER, labels: ['policy', 'syncMode'] },
  vsInline: { ...OVER, labels: ['policy', 'syncMode'] },
  vsOwnLogBatched: { ...OVER, labels: BATCHES },
  latencyNs: { unit: 'ns', class: 'timing', direction: 'lower', labels: ['mode', 'policy'] },
  loopNsPerAppend: {
    unit: 'ns',
    class: 'timing',
    direction: 'lower',
    labels: ['policy', 'syncMode', 'tool'],
  },
  p50Ns: { unit: 'ns', class: 'timing', direction: 'lower', labels: LOOKUP },
  p99Ns: { unit: 'ns', class: 'timing', direction: 'lower', labels: LOOKUP },
  preadP50Ns: { unit: 'ns', class: 'timing', direction: 'lower', labels: LOOKUP },
  // The pread and the record's check: the least a checked lookup does, on this machine.
  checkedPreadP50Ns: { unit: 'ns', class: 'timing', direction: 'lower', labels: LOOKUP },
  // The lookup's median over a bare pread's of the same records: lower is closer to the floor.
  vsPread: { ...OVER, direction: 'lower', labels: LOOKUP },
  // The resident set is the process's, after the garbage collector and the kernel had their say.
  rssGrowthBytes: {
    unit: 'B',
    class: 'measurement',
    direction: 'lower',
    labels: ['appendedBytes'],
  },
} as const;

export const BENCH_STORAGE_METRICS = declareMetrics('bench-storage', BENCH_STORAGE_DECLARATIONS);
