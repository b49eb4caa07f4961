/**
 * What an experiment declares for the readers of its results — the titles of its metric catalog
 * and its charts — and how they reach a results document: the context writes them into every
 * document it makes (lab/experiment.ts), and a reader that knows the experiment fills them into a
 * document written before they were recorded, so an old file charts as it did (reports/report.ts,
 * handed the registry by the CLI).
 */
import type { ChartDef } from './chart-spec.js';
import { type MetricCatalog, titlesOf } from './metric-catalog.js';
import type { Results } from './results.js';

export interface ExperimentDeclarations {
  /** kebab-case, unique: what `loglab run <id>` takes. */
  readonly id: string;
  /**
   * Every quantity it emits, declared once (lab/metric-catalog.ts); the context refuses a results
   * document with a metric the catalog does not declare.
   */
  readonly metrics?: MetricCatalog;
  /** Its charts, each plotting quantities of `metrics` (lab/chart-spec.ts), in report order. */
  readonly charts?: readonly ChartDef[];
}

/** The fields of a results document the declarations give. */
export function declaredParts(
  declarations: ExperimentDeclarations,
): Pick<Results, 'charts' | 'titles'> {
  return {
    ...(declarations.charts === undefined ? {} : { charts: [...declarations.charts] }),
    ...(declarations.metrics === undefined ? {} : { titles: titlesOf(declarations.metrics) }),
  };
}

/**
 * `results` with its experiment's charts and titles from `known` where the document has none
 * (one written before results carried them); the document's own are kept.
 */
export function withDeclarations(
  results: Results,
  known: readonly ExperimentDeclarations[],
): Results {
  const declared = known.find((candidate) => candidate.id === results.experiment.id);
  return declared === undefined ? results : { ...declaredParts(declared), ...results };
}
