/**
 * The puzzle answered in a sentence for the report's first screen: design A (the slot file)
 * against design B (the log) with every send synced, on this disk and on the modelled 7,200 rpm
 * disk, then the course's comparison. Series are found by their labels (docs/report-contract.md):
 * the same-guarantee pair has `policy: 'always'` on both sides, the course's pairs A under
 * `always` with B under `none`; B's head-at-each-delete variant is left to the tables.
 */
import { PUZZLE_METRICS } from '../experiments/metrics/puzzle.js';
import type { Metric, Results } from '../lab/results.js';
import { formatFigure } from '../lab/format.js';

/** The disk model standing in for a 7,200 rpm disk: predictions from `hdd:` models. */
const SPINNING_MODEL_PREFIX = 'hdd:';
const COURSE_MODEL = 'course';

export interface PuzzleFigures {
  readonly a: number;
  readonly b: number;
  /** B over A: the median of the rounds' ratios where recorded, else b / a. */
  readonly ratio: number;
}

export interface PuzzlePair {
  readonly comparison: string;
  readonly measured: PuzzleFigures;
  /** The 7,200 rpm model's prediction for the same writes; null when not predicted. */
  readonly modelled: PuzzleFigures | null;
  readonly model: string | null;
  /** The course's datasheet arithmetic, B over A; null when not predicted. */
  readonly courseRatio: number | null;
}

export interface PuzzleAnswer {
  readonly synced: PuzzlePair | null;
  readonly course: PuzzlePair | null;
}

function predicted(
  results: Results,
  name: string,
  model: (id: string) => boolean,
): { value: number; model: string } | null {
  const found = results.predictions.find((p) => p.name === name && model(p.model));
  return found === undefined ? null : { value: found.value, model: found.model };
}

const spinning = (model: string): boolean => model.startsWith(SPINNING_MODEL_PREFIX);

function pairOf(results: Results, a: Metric, b: Metric): PuzzlePair {
  const comparison = String(a.labels?.comparison ?? '');
  const ratioMetric = PUZZLE_METRICS.ratioBA
    .in(results)
    .find((metric) => metric.labels?.comparison === comparison);
  const modelA = predicted(results, a.name, spinning);
  const modelB = predicted(results, b.name, spinning);
  const modelRatio =
    ratioMetric === undefined
      ? null
      : (predicted(results, ratioMetric.name, spinning)?.value ?? null);
  const courseRatio =
    ratioMetric === undefined
      ? null
      : (predicted(results, ratioMetric.name, (model) => model === COURSE_MODEL)?.value ?? null);
  return {
    comparison,
    measured: { a: a.median, b: b.median, ratio: ratioMetric?.median ?? b.median / a.median },
    modelled:
      modelA === null || modelB === null
        ? null
        : { a: modelA.value, b: modelB.value, ratio: modelRatio ?? modelB.value / modelA.value },
    model: modelA?.model ?? null,
    courseRatio,
  };
}

function findPair(results: Results, policyA: string, policyB: string): PuzzlePair | null {
  const rates = PUZZLE_METRICS.msgsPerSec
    .in(results)
    .filter((metric) => metric.labels?.variant === undefined);
  for (const a of rates.filter((m) => m.labels?.design === 'A' && m.labels.policy === policyA)) {
    const b = rates.find(
      (m) =>
        m.labels?.design === 'B' &&
        m.labels.policy === policyB &&
        m.labels.comparison === a.labels?.comparison,
    );
    if (b !== undefined) return pairOf(results, a, b);
  }
  return null;
}

export function puzzleAnswer(results: Results): PuzzleAnswer {
  return {
    synced: findPair(results, 'always', 'always'),
    course: findPair(results, 'always', 'none'),
  };
}

const rate = (value: number): string => formatFigure(value);
const times = (value: number): string => `${formatFigure(value)}×`;

/** The answer in plain words; null when the document holds neither comparison. */
export function puzzleSentence(answer: PuzzleAnswer, where: string): string | null {
  const parts: string[] = [];
  const synced = answer.synced;
  if (synced !== null) {
    const m = synced.measured;
    parts.push(
      `With every send synced, ${where} the log (B) stored ${rate(m.b)} msgs/s and ` +
        `the slot file (A) ${rate(m.a)}: ${times(m.ratio)}.`,
    );
    if (synced.modelled !== null) {
      const d = synced.modelled;
      parts.push(
        `On the modelled 7,200 rpm disk (${synced.model ?? 'hdd'}, replaying these ` +
          `writes): B ${rate(d.b)} against A ${rate(d.a)}, ${times(d.ratio)}.`,
      );
    }
  }
  const course = answer.course;
  if (course !== null) {
    const here = `${times(course.measured.ratio)} here`;
    const modelled = course.modelled === null ? '' : `, ${times(course.modelled.ratio)} modelled`;
    const arithmetic =
      course.courseRatio === null
        ? ''
        : `, ${times(course.courseRatio)} by the course's arithmetic`;
    parts.push(
      `The course's comparison (B streaming, A synced per message): ${here}${modelled}` +
        `${arithmetic}.`,
    );
  }
  return parts.length === 0 ? null : parts.join(' ');
}
