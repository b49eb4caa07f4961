/**
 * A trend document: the gated metrics of a results history across commits, what `loglab report
 * --history` hands the report to chart. Part of the results contract reports may read: plain
 * data, checked by its schema when read, so that reports know nothing of the history's database
 * and lab nothing of how reports draw.
 *
 * One series is one metric on one machine with one set of parameters; its points are runs in the
 * order they started: the median, and the lowest and highest round (the median again for a
 * metric recorded as one value).
 */
import { z } from 'zod';
import { DIRECTIONS, metricSchema } from '../results.js';

export const TREND_SCHEMA = 'loglab/trend@1';

const pointSchema = z
  .object({
    commit: z.string().min(1),
    dirty: z.boolean().nullable(),
    startedAt: z.iso.datetime(),
    median: z.number(),
    low: z.number(),
    high: z.number(),
    rounds: z.number().int().nonnegative(),
  })
  .readonly();
export type TrendPoint = z.infer<typeof pointSchema>;

const seriesSchema = z
  .object({
    experimentId: z.string().min(1),
    metric: z.string().min(1),
    unit: z.string().min(1),
    direction: z.enum(DIRECTIONS),
    labels: metricSchema.shape.labels.unwrap(),
    /** What the legend calls the machine and parameters: `3f9a1c2b7d4e, quick`. */
    series: z.string().min(1),
    points: z.array(pointSchema).min(1).readonly(),
  })
  .readonly();
export type TrendSeries = z.infer<typeof seriesSchema>;

export const trendDocumentSchema = z
  .object({ schema: z.literal(TREND_SCHEMA), series: z.array(seriesSchema).readonly() })
  .readonly();
export type TrendDocument = z.infer<typeof trendDocumentSchema>;
