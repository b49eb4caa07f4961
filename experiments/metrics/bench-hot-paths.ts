/**
 * What `loglab bench hot-paths` emits: a subset of the storage bench's figures, declared as the
 * storage bench declares them (bench-storage.ts), under the hot-path bench's own id.
 */
import { declareMetrics } from '../../lab/metric-catalog.js';
import { BENCH_STORAGE_DECLARATIONS as STORAGE } from './bench-storage.js';

export const BENCH_HOT_PATHS_METRICS = declareMetrics('bench-hot-paths', {
  ratePerSec: STORAGE.ratePerSec,
  rawFsRatePerSec: STORAGE.rawFsRatePerSec,
  checksummedFsRatePerSec: STORAGE.checksummedFsRatePerSec,
  bytesPerSec: STORAGE.bytesPerSec,
  vsRawFs: STORAGE.vsRawFs,
  vsChecksummedFs: STORAGE.vsChecksummedFs,
  checksummedFsVsRawFs: STORAGE.checksummedFsVsRawFs,
  p50Ns: STORAGE.p50Ns,
  p99Ns: STORAGE.p99Ns,
  preadP50Ns: STORAGE.preadP50Ns,
  checkedPreadP50Ns: STORAGE.checkedPreadP50Ns,
  vsPread: STORAGE.vsPread,
});
