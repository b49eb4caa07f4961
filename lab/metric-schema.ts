/**
 * One metric of a results document (lab/results.ts): its schema, its class (who decides the
 * figure) and its direction (which way is better). Apart from the document so that the metric
 * builders (lab/metric.ts, lab/metric-catalog.ts) and the reading of older files
 * (lab/metric-legacy.ts) take the contract from here, below the document that holds metrics.
 */
import { z } from 'zod';

/** A label's value: `{ design: 'A', policy: 'always', producers: 4 }`. */
export const labelValueSchema = z.union([z.string(), z.number(), z.boolean()]);

/** Who decides a metric's figure; lab/metric.ts says which is which, compare applies the rules. */
export const METRIC_CLASSES = ['counter', 'measurement', 'timing'] as const;
/** Which way is better; `informational` metrics are reported and never fail a comparison. */
export const DIRECTIONS = ['higher', 'lower', 'informational'] as const;
export type MetricClass = (typeof METRIC_CLASSES)[number];
export type Direction = (typeof DIRECTIONS)[number];

export const metricSchema = z.object({
  /** Dotted name, e.g. `queue.B.always.cyclesPerSec`. */
  name: z.string().min(1),
  /** Unit of every value of this metric: `ops/s`, `ns`, `B`, `B/msg`, `ratio`, `count`, … */
  unit: z.string().min(1),
  /**
   * `timing` varies run to run; `counter` is deterministic for the same code and parameters
   * (bytes per message, fsyncs per message); `ratio` is a timing ratio measured within one run.
   */
  kind: z.enum(['timing', 'counter', 'ratio']),
  /**
   * `counter`: decided by the code alone; `measurement`: decided by the machine (device figures,
   * syncs under group commit, loss windows); `timing`: durations, rates and their ratios.
   */
  class: z.enum(METRIC_CLASSES),
  direction: z.enum(DIRECTIONS),
  median: z.number(),
  p50: z.number().optional(),
  p90: z.number().optional(),
  p99: z.number().optional(),
  p999: z.number().optional(),
  max: z.number().optional(),
  ci95: z.tuple([z.number(), z.number()]).optional(),
  /** How many samples the figure summarises. */
  count: z.number().int().nonnegative().optional(),
  /** Median absolute deviation of the samples (unscaled), in the metric's unit. */
  mad: z.number().nonnegative().optional(),
  /** Coefficient of variation of the samples (sample standard deviation over the mean). */
  cv: z.number().optional(),
  /** Samples beyond Tukey's fences (1.5 and 3 IQR); reported, never dropped. */
  outliers: z
    .object({
      lowSevere: z.number().int().nonnegative(),
      lowMild: z.number().int().nonnegative(),
      highMild: z.number().int().nonnegative(),
      highSevere: z.number().int().nonnegative(),
    })
    .optional(),
  /** Raw per-repetition values, kept so `compare` can bootstrap the change. */
  samples: z.array(z.number()).optional(),
  /** Structured dimensions for tables and charts: `{ design: 'A', policy: 'always' }`. */
  labels: z.record(z.string(), labelValueSchema).optional(),
  description: z.string().optional(),
});

export type Metric = z.infer<typeof metricSchema>;
