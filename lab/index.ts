/**
 * The harness's public face for experiments: the contract, the runner, statistics, I/O
 * accounting (phases and their totals, durable writes, dirty memory, the filesystem's journal,
 * the device's queue), write tracing, disk models, direct I/O, io_uring detection, fio, child
 * processes and results types. The CLI and tests may import the individual files; experiments
 * import from here. Installed, it is `loglab/lab`: `runExperiment` runs an experiment from code
 * (one of `loglab/experiments`, or your own) and `writeResultsFile` saves what it returned for
 * `loglab report` and `loglab compare`.
 *
 * Tests that mock a harness module (vi.mock) must not import this file inside vi.hoisted: it
 * loads the harness's modules before the mock is registered (cli/commands/run-storage.test.ts).
 */
export {
  type ContextOptions,
  type Experiment,
  type LabContext,
  type ParamSpec,
  type ParamValue,
  type ResultsParts,
  runExperiment,
} from './experiment.js';
export {
  type ChartDef,
  type PanelDef,
  byLabel,
  byQuantity,
  chart,
  panel,
  plot,
} from './chart-spec.js';
export { type MetricCatalog, type MetricSpec, declareMetrics } from './metric-catalog.js';
export { SYNCED_ROUND_MIN_SECONDS, WARM_UP_SHARE_OF_ROUND } from './round-length.js';
export {
  type Budget,
  type AsyncOperation,
  type SyncOperation,
  ClosedLoopTurns,
  TURN_SECONDS,
  interleave,
  measureAsync,
  measureOpenLoopAsync,
  measureOpenLoopSync,
  measureSync,
  runAsync,
  runSync,
  roundInTurns,
  type RoundTurnTaker,
  takeTurns,
  warmUpAsync,
  warmUpSync,
} from './runner.js';
export { Measurement, type Repetition, type RunMode, type RunSummary } from './measurement.js';
export { LoopBusy } from './loop-busy.js';
export {
  counterMetric,
  type Direction,
  type Labels,
  measuredMetric,
  metricFromSamples,
  type MetricClass,
} from './metric.js';
export {
  medianCi,
  medianCiRanks,
  median,
  percentile,
  summarize,
  tukeyOutliers,
} from './stats.js';
export { SeededRandom } from '../storage/sim/prng.js';
export { IoPhase, type PhaseIo, pageCacheProof, perMessage, phaseCounters } from './io.js';
export { flushDirtyPages } from './probes/page-cache.js';
export { type SpinningVerdict, spinningVerdict } from './models/spinning-verdict.js';
export { TracingFileIO, WriteTrace } from './models/trace-io.js';
export {
  DISK_PRESETS,
  EXOS_X20,
  PAGE_BYTES,
  SAMSUNG_990_PRO,
  type DiskModel,
  halfTurnMs,
  transferMs,
} from './models/models.js';
export {
  COURSE_NORMAL_TRAFFIC,
  COURSE_SEGMENT_TABLE_BYTES,
  type Traffic,
  secondsToFill,
  trafficBytesPerSec,
} from './plan/capacity.js';
export { COURSE_SCENARIO, hddCourseFigures, ssdCourseFigures } from './models/course-arithmetic.js';
export { estimatePrediction, estimateTrace, estimatedRatePerSec } from './models/trace-estimate.js';
export {
  type Metric,
  type Prediction,
  type Results,
  readResultsFile,
  writeResultsFile,
} from './results.js';
export { PhaseTotals } from './phase-totals.js';
export { flushedBlocks } from './models/trace-blocks.js';
export { traceSlice } from './models/trace-slice.js';
export { DurableWatermarkFileIO, type RecordsFound } from './durable-watermark.js';
export { type DirtyMemory, readDirtyMemory } from './probes/meminfo.js';
export { type JournalInfo, describeJournal } from './probes/fs-journal.js';
export type { BlockDevice } from './probes/block-device.js';
export {
  type DeviceWriteFile,
  type DeviceWriteMode,
  openDeviceWriteFile,
} from './probes/direct-io.js';
export {
  COLD_READ_MODES,
  ColdReadFileIO,
  type ColdReadMethod,
  type ColdReadMode,
  type ColdReads,
} from './cold-reads.js';
export { InflightSampler, type InflightSummary } from './probes/inflight-sampler.js';
export { type IoUringState, ioUringAllowed, ioUringState } from './probes/io-uring.js';
export { type FioOutcome, type FioWrite, fioVersion, runFioJob } from './probes/fio.js';
export { runTypeScriptChild } from './ts-child.js';
export { packageFile } from './package-root.js';
export { LabError } from './errors.js';
export { formatBytes, formatFigure } from './format.js';
