/**
 * Comparing two results documents of one experiment, metric by metric, into a verdict a CI job
 * can act on. The metric's contract (lab/metric.ts: class, direction, kind) decides the rule:
 *
 * - class `counter` (bytes, writes, fsyncs per message the code issues; index bytes): decided by
 *   the code alone, so any change beyond floating-point rounding counts, however small: a byte
 *   per message more is a regression. Gated.
 * - kind `ratio` (two figures of one run divided, so the machine's speed divides out): a change
 *   counts when the two sides' exact 95% intervals of the median (order statistics, stats.ts
 *   medianCi: 6 samples at least) do not overlap and the change exceeds the threshold
 *   (`--threshold`, 5%). Two runs of one distribution give disjoint intervals rarely (at 6
 *   samples each, 2 in 924 orderings), so a plain rerun passes. With one value a side the
 *   threshold alone decides (the output says so); with 2-5 rounds on a side the figure is
 *   reported, not gated: it cannot tell its noise from a change. Gated.
 * - class `measurement` (device bytes per message, fsyncs per message under group commit): the
 *   machine decides it, and moves it more than a within-run ratio, so it is gated only with 6
 *   rounds (samples) a side, disjoint intervals and a change beyond 10% or the threshold,
 *   whichever is larger; with fewer rounds, or one value a side, it is reported and the output
 *   says it was not gated and why.
 * - class `timing`, kind `timing` (rates, latencies): reported only unless `gateTimings`, then
 *   judged as a ratio is: a busy shared machine moves them by more than any sane threshold.
 * - direction `informational`: reported, never gated.
 *
 * A file written before metrics carried a contract gets one inferred (metric-legacy.ts) and a
 * warning says so. Documents that cannot be compared (another schema version, another
 * experiment, metrics missing on either side, a metric whose unit, class or kind changed) are
 * refused with INVALID_RESULTS, listing every problem.
 */
import { assert } from '../../storage/errors.js';
import { LabError } from '../errors.js';
import type { Direction, Metric, MetricClass, Results } from '../results.js';
import {
  type NamedResults,
  inferredContractNote,
  parseNamedResults,
  readJson as readJsonAs,
  readResultsDirectory,
  schemaOf,
} from '../results-documents.js';
import { MEDIAN_CI_MIN_SAMPLES, medianCi } from '../stats.js';

export const DEFAULT_THRESHOLD = 0.05;
/**
 * The smallest change of a measurement that counts, however low `--threshold` is set: the
 * machine decides it (the disk, the kernel's writeback, other programs on the disk), and between
 * two runs nothing divides that out as it does within one run for a ratio.
 */
export const MEASUREMENT_THRESHOLD_FLOOR = 0.1;
/** Counters differ only by floating-point rounding when the code did not change. */
export const COUNTER_RELATIVE_TOLERANCE = 1e-9;
/** Fewer samples than this on a side is one value, not rounds whose spread shows their noise. */
const MIN_SAMPLES = 2;

/**
 * `unchanged` is a counter's; `within noise` a varying figure's that moved less than the rule;
 * `changed` an informational metric's that moved.
 */
export type Verdict = 'improved' | 'regressed' | 'within noise' | 'unchanged' | 'changed';

type Contract = Pick<Metric, 'kind' | 'class' | 'direction'>;

export interface MetricComparison {
  readonly name: string;
  readonly unit: string;
  readonly kind: Metric['kind'];
  readonly class: MetricClass;
  readonly baseline: number;
  readonly current: number;
  /** current / baseline - 1; null when the baseline is 0. */
  readonly change: number | null;
  readonly difference: number;
  /** Bootstrap 95% interval of the relative change; null when it cannot be computed. */
  readonly ci95: readonly [number, number] | null;
  /** Why there is no interval (or that a counter needs none). */
  readonly intervalNote: string | null;
  /** The smallest change that counts for this metric; null for a counter, compared exactly. */
  readonly thresholdRatio: number | null;
  readonly direction: Direction;
  readonly verdict: Verdict;
  /** Whether this verdict can fail the comparison. */
  readonly gated: boolean;
  /**
   * Why it cannot (`n=3 rounds, a measurement needs 6 to be gated`); null when gated, and side by
   * side (compare-format.ts sideBySide), where nothing is judged.
   */
  readonly notGated: string | null;
}

export interface Comparison {
  readonly experimentId: string;
  readonly baselineFile: string;
  readonly currentFile: string;
  readonly thresholdRatio: number;
  /** The threshold measurements were judged by: the larger of the floor and `thresholdRatio`. */
  readonly measurementThresholdRatio: number;
  readonly gateTimings: boolean;
  readonly metrics: readonly MetricComparison[];
  /** Differences worth knowing that do not make the documents incomparable. */
  readonly warnings: readonly string[];
  /** Gated metrics that regressed. */
  readonly failures: readonly MetricComparison[];
  /** The rule the verdicts followed, where it is not a comparison of two files' (paired.ts). */
  readonly rule?: string;
}

export interface CompareOptions {
  readonly thresholdRatio: number;
  readonly gateTimings: boolean;
}

export type { NamedResults } from '../results-documents.js';

function unusable(message: string): LabError {
  return new LabError('INVALID_RESULTS', `compare: ${message}`);
}

const readJson = (file: string): unknown => readJsonAs(file, unusable);
const parseComparable = (value: unknown, file: string): NamedResults =>
  parseNamedResults(value, file, unusable);

function checkSameSchema(
  baselineFile: string,
  before: unknown,
  currentFile: string,
  after: unknown,
): void {
  if (typeof before === 'string' && typeof after === 'string' && before !== after) {
    throw unusable(
      `different schema versions: ${baselineFile} is ${before}, ${currentFile} is ` +
        `${after}; produce both with the same loglab version`,
    );
  }
}

/** Reads both files, refusing two schema versions before either is validated. */
export function readComparablePair(
  baselineFile: string,
  currentFile: string,
): [NamedResults, NamedResults] {
  const baseline = readJson(baselineFile);
  const current = readJson(currentFile);
  checkSameSchema(baselineFile, schemaOf(baseline), currentFile, schemaOf(current));
  return [parseComparable(baseline, baselineFile), parseComparable(current, currentFile)];
}

/** Reads a baseline file to compare a document already in memory with. */
export function readBaselineFor(baselineFile: string, current: NamedResults): NamedResults {
  const baseline = readJson(baselineFile);
  checkSameSchema(baselineFile, schemaOf(baseline), current.file, current.results.schema);
  return parseComparable(baseline, baselineFile);
}

function byName(doc: NamedResults, problems: string[]): Map<string, Metric> {
  const metrics = new Map<string, Metric>();
  for (const metric of doc.results.metrics) {
    if (metrics.has(metric.name)) problems.push(`${doc.file} has metric ${metric.name} twice`);
    metrics.set(metric.name, metric);
  }
  return metrics;
}

function list(names: readonly string[]): string {
  return `${names.length} (${names.join(', ')})`;
}

/** Every reason the two documents cannot be compared metric by metric, or none. */
function structuralProblems(
  baseline: NamedResults,
  current: NamedResults,
  before: Map<string, Metric>,
  after: Map<string, Metric>,
): string[] {
  const [idBefore, idAfter] = [baseline.results.experiment.id, current.results.experiment.id];
  if (idBefore !== idAfter) {
    // Their metrics differ too; listing them would bury the one problem that matters.
    return [
      `different experiments: ${baseline.file} is '${idBefore}', ` +
        `${current.file} is '${idAfter}'; compare a results file with one of the same experiment`,
    ];
  }
  const problems: string[] = [];
  const missing = [...before.keys()].filter((name) => !after.has(name));
  const added = [...after.keys()].filter((name) => !before.has(name));
  if (missing.length > 0) problems.push(`missing from ${current.file}: ${list(missing)}`);
  if (added.length > 0) problems.push(`not in ${baseline.file}: ${list(added)}`);
  for (const [name, old] of before) {
    const now = after.get(name);
    if (now === undefined) continue;
    if (now.unit !== old.unit) problems.push(`${name} changed unit: ${old.unit} → ${now.unit}`);
    // An inferred contract is a guess: the declared one on the other side is used instead.
    if (baseline.contractInferred || current.contractInferred) continue;
    if (now.kind !== old.kind) problems.push(`${name} changed kind: ${old.kind} → ${now.kind}`);
    if (now.class !== old.class) {
      problems.push(`${name} changed class: ${old.class} → ${now.class}`);
    }
  }
  return problems;
}

function inferenceWarnings(baseline: NamedResults, current: NamedResults): string[] {
  return [baseline, current]
    .filter((doc) => doc.contractInferred)
    .map(
      (doc) =>
        inferredContractNote(doc.file) +
        (baseline.contractInferred && current.contractInferred
          ? ''
          : "; the other file's declared ones are used"),
    );
}

function warningsFor(baseline: Results, current: Results): string[] {
  const warnings: string[] = [];
  const keys = new Set([...Object.keys(baseline.parameters), ...Object.keys(current.parameters)]);
  const changed = [...keys].filter(
    (key) => JSON.stringify(baseline.parameters[key]) !== JSON.stringify(current.parameters[key]),
  );
  if (changed.length > 0) warnings.push(`parameters differ: ${changed.join(', ')}`);
  if (baseline.quick !== current.quick) {
    warnings.push('one document is a quick run and the other is not');
  }
  const { environment: a } = baseline;
  const { environment: b } = current;
  const sameMachine =
    a.hostname === b.hostname &&
    a.device.model === b.device.model &&
    a.filesystem.type === b.filesystem.type;
  if (!sameMachine && current.metrics.some((metric) => metric.kind === 'timing')) {
    warnings.push(
      `measured on different machines (${a.hostname}, ${b.hostname}): raw timings ` +
        'and measurements are not comparable; ratios and counters are',
    );
  }
  return warnings;
}

/** `improved` or `regressed` by the metric's direction; `changed` for an informational one. */
export function judge(direction: Direction, better: boolean): Verdict {
  if (direction === 'informational') return 'changed';
  return better ? 'improved' : 'regressed';
}

type Judged = Pick<MetricComparison, 'verdict' | 'ci95' | 'intervalNote'>;

/** A counter's verdict: any change beyond floating-point rounding counts, by its direction. */
export function counterVerdict(before: number, after: number, direction: Direction): Verdict {
  const difference = after - before;
  const scale = Math.max(Math.abs(before), Math.abs(after));
  const changed = Math.abs(difference) > COUNTER_RELATIVE_TOLERANCE * scale;
  return changed ? judge(direction, (direction === 'higher') === difference > 0) : 'unchanged';
}

function compareCounter(old: Metric, now: Metric, direction: Direction): Judged {
  return {
    verdict: counterVerdict(old.median, now.median, direction),
    ci95: null,
    intervalNote: 'counter: compared exactly',
  };
}

function samplesNote(old: Metric, now: Metric): string | null {
  const [before, after] = [old.samples?.length ?? 0, now.samples?.length ?? 0];
  if (before < MIN_SAMPLES && after < MIN_SAMPLES) return 'none: one value each, threshold only';
  const fewest = MEDIAN_CI_MIN_SAMPLES;
  if (before < fewest)
    return `unavailable: the baseline has ${before} samples (an interval needs ${fewest})`;
  if (after < fewest)
    return `unavailable: the current document has ${after} samples (an interval needs ${fewest})`;
  if (!old.samples!.every((value) => value > 0)) {
    return 'unavailable: baseline samples are not all positive';
  }
  return null;
}

/**
 * The relative change's bounds that the two medians' intervals allow; it excludes zero exactly
 * when the intervals do not overlap.
 */
function changeBounds(old: readonly number[], now: readonly number[]): readonly [number, number] {
  const [before, after] = [medianCi(old)!.ci95, medianCi(now)!.ci95];
  return [after[0] / before[1] - 1, after[1] / before[0] - 1];
}

/** A varying figure: the intervals must not overlap and the change pass the threshold. */
function compareVarying(
  old: Metric,
  now: Metric,
  direction: Direction,
  thresholdRatio: number,
): Judged {
  if (old.median === 0) {
    const verdict =
      now.median === 0
        ? 'within noise'
        : judge(direction, (direction === 'higher') === now.median > 0);
    return { verdict, ci95: null, intervalNote: 'unavailable: the baseline is 0' };
  }
  const change = now.median / old.median - 1;
  const note = samplesNote(old, now);
  const ci95 = note === null ? changeBounds(old.samples!, now.samples!) : null;
  const excludesZero = ci95 === null || ci95[0] > 0 || ci95[1] < 0;
  const counts = excludesZero && Math.abs(change) > thresholdRatio;
  return {
    verdict: counts ? judge(direction, (direction === 'higher') === change > 0) : 'within noise',
    ci95: ci95 === null ? null : [ci95[0], ci95[1]],
    intervalNote: note,
  };
}

/** The contract to judge by: the declared one where only one side declares it. */
function contractOf(
  old: Metric,
  now: Metric,
  baselineInferred: boolean,
  currentInferred: boolean,
): Contract {
  const declared = currentInferred && !baselineInferred ? old : now;
  return { kind: declared.kind, class: declared.class, direction: declared.direction };
}

/**
 * Whether the contract lets a metric fail the comparison (docs/results-format.md): a counter, a
 * within-run ratio and a measurement can, a raw timing only with `gateTimings`, an informational
 * metric never. A varying figure needs the rounds to be judged as well (whyNotGated).
 */
export function isGated(contract: Contract, gateTimings: boolean): boolean {
  if (contract.direction === 'informational') return false;
  return contract.class !== 'timing' || contract.kind === 'ratio' || gateTimings;
}

/** A figure the machine decided, compared across runs: not a within-run ratio. */
const isMeasurement = (contract: Contract) =>
  contract.class === 'measurement' && contract.kind !== 'ratio';

/** The threshold a measurement is judged by: the floor, or `thresholdRatio` when larger. */
const measurementThreshold = (thresholdRatio: number) =>
  Math.max(MEASUREMENT_THRESHOLD_FLOOR, thresholdRatio);

/** The smallest change that counts for a varying figure. */
function thresholdFor(contract: Contract, thresholdRatio: number): number {
  return isMeasurement(contract) ? measurementThreshold(thresholdRatio) : thresholdRatio;
}

const roundsOf = (metric: Metric) => metric.samples?.length ?? 0;

/**
 * Why a metric cannot fail the comparison, or null when it can. A per-round figure with fewer
 * rounds than an interval needs (on either side) cannot tell its own noise from a change; a
 * ratio or timing with one value a side keeps the threshold rule, a measurement does not: one
 * value of the machine's says nothing of how far the next run may land.
 */
function whyNotGated(old: Metric, now: Metric, contract: Contract, gateTimings: boolean) {
  if (contract.direction === 'informational') return 'informational, no direction is better';
  if (!isGated(contract, gateTimings)) return 'a raw timing, gated only with --gate-timings';
  if (contract.class === 'counter') return null;
  const fewest = Math.min(roundsOf(old), roundsOf(now));
  if (fewest >= MEDIAN_CI_MIN_SAMPLES) return null;
  const needs = `needs ${MEDIAN_CI_MIN_SAMPLES}`;
  if (isMeasurement(contract)) {
    return fewest < MIN_SAMPLES
      ? `one value, a measurement ${needs} rounds to be gated`
      : `n=${fewest} rounds, a measurement ${needs} to be gated`;
  }
  if (Math.max(roundsOf(old), roundsOf(now)) < MIN_SAMPLES) return null;
  return `n=${fewest} rounds, a ${contract.kind === 'ratio' ? 'ratio' : 'timing'} ${needs} to be gated`;
}

function compareMetric(
  old: Metric,
  now: Metric,
  contract: Contract,
  options: CompareOptions,
): MetricComparison {
  const threshold =
    contract.class === 'counter' ? null : thresholdFor(contract, options.thresholdRatio);
  const judged =
    threshold === null
      ? compareCounter(old, now, contract.direction)
      : compareVarying(old, now, contract.direction, threshold);
  const notGated = whyNotGated(old, now, contract, options.gateTimings);
  return {
    name: now.name,
    unit: now.unit,
    kind: contract.kind,
    class: contract.class,
    baseline: old.median,
    current: now.median,
    change: old.median === 0 ? null : now.median / old.median - 1,
    difference: now.median - old.median,
    thresholdRatio: threshold,
    direction: contract.direction,
    gated: notGated === null,
    notGated,
    ...judged,
  };
}

export function compareDocuments(
  baseline: NamedResults,
  current: NamedResults,
  options: CompareOptions,
): Comparison {
  assert(options.thresholdRatio > 0, `threshold must be positive: ${options.thresholdRatio}`);
  const problems: string[] = [];
  const before = byName(baseline, problems);
  const after = byName(current, problems);
  problems.push(...structuralProblems(baseline, current, before, after));
  if (problems.length > 0) {
    throw unusable(
      `${baseline.file} and ${current.file} cannot be compared: ${problems.join('; ')}`,
    );
  }
  const metrics = [...before].map(([name, old]) => {
    const now = after.get(name)!;
    const contract = contractOf(old, now, baseline.contractInferred, current.contractInferred);
    return compareMetric(old, now, contract, options);
  });
  return {
    experimentId: current.results.experiment.id,
    baselineFile: baseline.file,
    currentFile: current.file,
    thresholdRatio: options.thresholdRatio,
    measurementThresholdRatio: measurementThreshold(options.thresholdRatio),
    gateTimings: options.gateTimings,
    metrics,
    warnings: [
      ...inferenceWarnings(baseline, current),
      ...warningsFor(baseline.results, current.results),
    ],
    failures: metrics.filter((metric) => metric.gated && metric.verdict === 'regressed'),
  };
}

/** Every results file directly in `dir`, by experiment id; other JSON (charts) is skipped. */
function readSuite(dir: string, problems: string[]): Map<string, NamedResults> {
  const suite = new Map<string, NamedResults>();
  for (const doc of readResultsDirectory(dir, unusable)) {
    const id = doc.results.experiment.id;
    const other = suite.get(id);
    if (other !== undefined) problems.push(`${dir} holds ${id} twice: ${other.file}, ${doc.file}`);
    suite.set(id, doc);
  }
  if (suite.size === 0) problems.push(`${dir} holds no results file`);
  return suite;
}

/**
 * Two directories of results files (two `loglab run --out` folders), matched by experiment id:
 * the pairs to compare, in the baseline's order. An experiment on one side only is refused, as a
 * metric on one side only is.
 */
export function readComparableSuites(
  baselineDir: string,
  currentDir: string,
): [NamedResults, NamedResults][] {
  const problems: string[] = [];
  const before = readSuite(baselineDir, problems);
  const after = readSuite(currentDir, problems);
  const missing = [...before.keys()].filter((id) => !after.has(id));
  const added = [...after.keys()].filter((id) => !before.has(id));
  if (missing.length > 0) problems.push(`missing from ${currentDir}: ${list(missing)}`);
  if (added.length > 0) problems.push(`not in ${baselineDir}: ${list(added)}`);
  if (problems.length > 0) {
    throw unusable(`${baselineDir} and ${currentDir} cannot be compared: ${problems.join('; ')}`);
  }
  return [...before].map(([id, baseline]) => {
    const current = after.get(id)!;
    checkSameSchema(baseline.file, baseline.results.schema, current.file, current.results.schema);
    return [baseline, current];
  });
}
