/**
 * Results documents: the one format every experiment writes and every report reads.
 *
 * Versioned (`schema: "loglab/results@1"`), validated when read with errors that name the field,
 * written atomically (temp file, fsync, rename, fsync of the directory). The full field list is in
 * docs/results-format.md.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { chartSchema } from './chart-spec.js';
import { withInferredContract } from './metric-legacy.js';
import { type Metric, labelValueSchema, metricSchema } from './metric-schema.js';

export {
  DIRECTIONS,
  type Direction,
  METRIC_CLASSES,
  type Metric,
  type MetricClass,
  metricSchema,
} from './metric-schema.js';

export const RESULTS_SCHEMA = 'loglab/results@1';
const SCHEMA_PREFIX = 'loglab/results@';

export const predictionSchema = z.object({
  /** The metric this predicts, matching a metric name where one exists. */
  name: z.string().min(1),
  /** The model that produced it, e.g. `hdd:exos-x20`, `ssd:990-pro`, `course`. */
  model: z.string().min(1),
  unit: z.string().min(1),
  value: z.number(),
  labels: z.record(z.string(), labelValueSchema).optional(),
  basis: z.string().optional(),
});

/** A full git commit id: 40 hex digits, or 64 in a SHA-256 repository. */
export const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export const environmentSchema = z.object({
  hostname: z.string(),
  os: z.string(),
  kernel: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  cpuCores: z.number().int().positive(),
  memoryBytes: z.number().nonnegative(),
  nodeVersion: z.string(),
  dir: z.string(),
  filesystem: z.object({
    type: z.string().nullable(),
    mountPoint: z.string().nullable(),
    mountOptions: z.string().nullable(),
    source: z.string().nullable(),
  }),
  device: z.object({
    name: z.string().nullable(),
    model: z.string().nullable(),
    rotational: z.boolean().nullable(),
    writeCache: z.string().nullable(),
    fua: z.boolean().nullable(),
    scheduler: z.string().nullable(),
    nrRequests: z.number().nullable(),
    logicalBlockBytes: z.number().nullable(),
    physicalBlockBytes: z.number().nullable(),
  }),
  freeBytes: z.number().nonnegative().nullable(),
  /**
   * What holds `dir` (lab/probes/storage-kind.ts): a block device, memory (tmpfs, zram), or nothing
   * loglab can see as a disk (overlay). Missing in files written before it was recorded.
   */
  storage: z.enum(['block', 'memory', 'no-device']).optional(),
  /** Whether the page cache can be dropped here (root) — cold figures depend on it. */
  canDropCaches: z.boolean(),
  /**
   * Whether this machine hands freed memory back to its host (lab/probes/free-page-reporting.ts):
   * page-cache rates then depend on which memory a round gets. Missing in older files.
   */
  freePageReporting: z.boolean().optional(),
  /**
   * The loglab checkout that ran (lab/probes/git-checkout.ts): its commit, and whether tracked
   * files differed from it; null when loglab was not a git checkout of its own (installed from
   * npm). Missing in files written before it was recorded. `loglab history` keys runs by it.
   */
  git: z
    .object({ commit: z.string().regex(COMMIT_ID), dirty: z.boolean() })
    .nullable()
    .optional(),
});

/** `cpuSteal` at or above this share is noted in the results and warned of in reports. */
export const STEAL_NOTE_SHARE = 0.05;

export const resultsSchema = z.object({
  schema: z.literal(RESULTS_SCHEMA),
  experiment: z.object({ id: z.string().min(1), question: z.string().min(1) }),
  /** One sentence on what this disk showed, for the top of a report. */
  headline: z.string().optional(),
  quick: z.boolean(),
  seed: z.number().int(),
  parameters: z.record(z.string(), z.unknown()),
  environment: environmentSchema,
  startedAt: z.iso.datetime(),
  endedAt: z.iso.datetime(),
  timer: z.string().min(1),
  /** What the runner records for an empty operation: the floor of every per-op latency. */
  timerOverheadNs: z.number().nonnegative().optional(),
  metrics: z.array(metricSchema),
  counters: z.record(z.string(), z.number()),
  predictions: z.array(predictionSchema),
  notes: z.array(z.string()),
  /**
   * The charts the experiment declares (lab/chart-spec.ts), so a report draws them from this
   * document alone. Missing in files written before they were recorded, and for an experiment
   * that declares none: reports then draw the generic chart, unless their caller knows the
   * experiment (reports/report.ts).
   */
  charts: z.array(chartSchema).optional(),
  /** What a reader calls each quantity, by quantity (the catalog's `title`s); missing likewise. */
  titles: z.record(z.string(), z.string().min(1)).optional(),
  /**
   * The share of the machine's CPU time the hypervisor gave to other guests while the experiment
   * ran (lab/probes/cpu-steal.ts), in jiffies from /proc/stat; missing where that is not
   * readable, and in files written before it was recorded.
   */
  cpuSteal: z
    .object({
      share: z.number().min(0).max(1),
      stealTicks: z.number().int().nonnegative(),
      totalTicks: z.number().int().positive(),
    })
    .optional(),
  /**
   * Present when other programs wrote more than 10% of the disk's bytes in a measured phase
   * (lab/probes/device-share.ts): those phases summed, and how many phases there were.
   */
  deviceShared: z
    .object({
      phases: z.number().int().nonnegative(),
      sharedPhases: z.number().int().positive(),
      otherBytes: z.number().nonnegative(),
      ownBytes: z.number().nonnegative(),
      deviceBytes: z.number().nonnegative(),
      fraction: z.number().min(0).max(1),
    })
    .optional(),
});

/**
 * Files written before metrics carried a class and a direction: both may be missing (from every
 * metric, never from some), and are then inferred (metric-legacy.ts).
 */
const storedResultsSchema = resultsSchema.extend({
  metrics: z.array(
    metricSchema.extend({
      class: metricSchema.shape.class.optional(),
      direction: metricSchema.shape.direction.optional(),
    }),
  ),
});

export type Prediction = z.infer<typeof predictionSchema>;
export type Environment = z.infer<typeof environmentSchema>;
export type Results = z.infer<typeof resultsSchema>;

export class ResultsFormatError extends Error {
  readonly code = 'INVALID_RESULTS' as const;
  readonly file: string;
  readonly field: string;

  constructor(file: string, field: string, message: string) {
    super(`lab: ${file}: ${field}: ${message}`);
    this.name = 'ResultsFormatError';
    this.file = file;
    this.field = field;
  }
}

function formatError(file: string, error: z.ZodError): ResultsFormatError {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : '(document)';
  return new ResultsFormatError(file, field, issue?.message ?? 'invalid');
}

function checkSchemaVersion(value: unknown, file: string): void {
  const schema = (value as { schema?: unknown } | null)?.schema;
  if (typeof schema === 'string' && schema.startsWith(SCHEMA_PREFIX) && schema !== RESULTS_SCHEMA) {
    throw new ResultsFormatError(
      file,
      'schema',
      `is ${schema}, this loglab reads ${RESULTS_SCHEMA}; upgrade loglab to read it`,
    );
  }
}

export interface ParsedResults {
  readonly results: Results;
  /** True for a file written before metrics carried a class: classes and directions inferred. */
  readonly contractInferred: boolean;
}

/**
 * Validates a parsed document, inferring the metric contract of a file written before metrics
 * carried one; throws ResultsFormatError naming the first bad field.
 */
export function parseResultsWithOrigin(value: unknown, file = '<results>'): ParsedResults {
  checkSchemaVersion(value, file);
  const parsed = resultsSchema.safeParse(value);
  if (parsed.success) return { results: parsed.data, contractInferred: false };
  const stored = storedResultsSchema.safeParse(value);
  if (!stored.success) throw formatError(file, stored.error);
  const metrics = stored.data.metrics;
  // A file with a contract on some metrics and not others was written wrongly: name the field.
  if (metrics.some((metric) => metric.class !== undefined || metric.direction !== undefined)) {
    throw formatError(file, parsed.error);
  }
  return {
    results: { ...stored.data, metrics: metrics.map(withInferredContract) },
    contractInferred: true,
  };
}

/** Validates a parsed document; throws ResultsFormatError naming the first bad field. */
export function parseResults(value: unknown, file = '<results>'): Results {
  return parseResultsWithOrigin(value, file).results;
}

/** Writing checks the full contract: every metric carries its class and direction. */
function checkedForWriting(results: Results, file: string): Results {
  checkSchemaVersion(results, file);
  const parsed = resultsSchema.safeParse(results);
  if (!parsed.success) throw formatError(file, parsed.error);
  return parsed.data;
}

export function readResultsFile(file: string): Results {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ResultsFormatError(file, '(file)', `cannot be read: ${(cause as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ResultsFormatError(file, '(file)', `is not JSON: ${(cause as Error).message}`);
  }
  return parseResults(value, file);
}

/** Writes a validated document atomically: temp file, fsync, rename, fsync of the directory. */
export function writeResultsFile(file: string, results: Results): void {
  const checked = checkedForWriting(results, file);
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeFileSync(fd, `${JSON.stringify(checked, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  const dirFd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}

export function findMetric(results: Results, name: string): Metric | undefined {
  return results.metrics.find((metric) => metric.name === name);
}
