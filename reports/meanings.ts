/**
 * What each quantity means, said once: the descriptions an experiment's metrics carry, merged per
 * quantity. Descriptions that differ only in their numbers (`over all 10508 operations`, `over
 * all 13896 operations`) become one, the numbers given as a range; descriptions that differ in
 * words give each clause once, the values of a repeated `key: value` clause side by side.
 */
import type { ExperimentGroup } from './runs.js';
import { quantityOf } from './figures.js';
import { formatFigure } from '../lab/format.js';

const NUMBER = /\d[\d,]*(?:\.\d+)?/g;

function numbersOf(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((match) => Number(match[0].replace(/,/g, '')));
}

/** Descriptions with one wording, numbers that differ written `lowest–highest`. */
function mergeNumbers(texts: readonly string[]): string {
  const first = texts[0] ?? '';
  const columns = texts.map(numbersOf);
  let slot = 0;
  return first.replace(NUMBER, (raw) => {
    const values = columns.map((numbers) => numbers[slot] ?? Number.NaN);
    slot += 1;
    const low = Math.min(...values);
    const high = Math.max(...values);
    return low === high ? raw : `${formatFigure(low)}–${formatFigure(high)}`;
  });
}

/** A clause `deletes: each delete synced` has a key; one without a key is its own. */
const KEYED_CLAUSE = /^([A-Za-z][\w ]{0,30}): (.+)$/;

/**
 * Descriptions whose wordings differ: their clauses (split at `; `) once each, in order, and
 * the values of one keyed clause together: `deletes: each delete synced | head saved …`.
 */
function mergeClauses(texts: readonly string[]): string {
  const order: string[] = [];
  const values = new Map<string, string[]>();
  for (const clause of texts.flatMap((text) => text.split('; '))) {
    const match = KEYED_CLAUSE.exec(clause);
    const key = match?.[1] ?? clause;
    if (!values.has(key)) {
      order.push(key);
      values.set(key, []);
    }
    const list = values.get(key)!;
    const value = match?.[2];
    if (value !== undefined && !list.includes(value)) list.push(value);
  }
  return order
    .map((key) => {
      const list = values.get(key) ?? [];
      return list.length === 0 ? key : `${key}: ${list.join(' | ')}`;
    })
    .join('; ');
}

function mergeDescriptions(texts: readonly string[]): string {
  const byWording = new Map<string, string[]>();
  for (const text of texts) {
    const wording = text.replace(NUMBER, '#');
    byWording.set(wording, [...(byWording.get(wording) ?? []), text]);
  }
  const merged = [...byWording.values()].map(mergeNumbers);
  return merged.length === 1 ? (merged[0] ?? '') : mergeClauses(merged);
}

/** `quantity → what it means`, once per quantity, in the order the quantities appear. */
export function quantityMeanings(group: ExperimentGroup): ReadonlyMap<string, string> {
  const texts = new Map<string, string[]>();
  for (const run of group.runs) {
    for (const metric of run.results.metrics) {
      if (metric.description === undefined) continue;
      const quantity = quantityOf(metric.name);
      const list = texts.get(quantity) ?? [];
      if (!list.includes(metric.description)) list.push(metric.description);
      texts.set(quantity, list);
    }
  }
  return new Map([...texts].map(([quantity, list]) => [quantity, mergeDescriptions(list)]));
}
