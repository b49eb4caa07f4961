/**
 * What a reader calls a quantity: the human title its experiment's catalog declares, which the
 * results documents carry (`titles`); the raw quantity when none gives one. Tables head each
 * quantity with the title and keep the raw name beside it.
 */
import type { Results } from '../lab/results.js';

/** The title of `quantity` in the first of `documents` (one experiment's) that gives one. */
export function metricTitle(documents: readonly Results[], quantity: string): string {
  return (
    documents.map((results) => results.titles?.[quantity]).find((title) => title !== undefined) ??
    quantity
  );
}
