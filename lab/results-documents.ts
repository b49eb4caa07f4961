/**
 * Reading results documents the way every command that takes them does (`compare`, `export`):
 * a file, or every results document directly in a `loglab run --out` folder, other JSON (charts)
 * skipped. Each command names itself in its errors through `fail`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Results, ResultsFormatError, parseResultsWithOrigin } from './results.js';

export interface NamedResults {
  readonly file: string;
  readonly results: Results;
  /** Written before metrics carried a class: the contract was inferred (metric-legacy.ts). */
  readonly contractInferred: boolean;
}

/** Makes the calling command's error (INVALID_RESULTS) from a sentence. */
export type Fail = (message: string) => Error;

const RESULTS_SCHEMA_PREFIX = 'loglab/results@';

export function readJson(file: string, fail: Fail): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (cause) {
    throw fail(`${file} cannot be read: ${(cause as Error).message}; check the path`);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw fail(`${file} is not JSON: ${(cause as Error).message}`);
  }
}

export const schemaOf = (value: unknown): unknown => (value as { schema?: unknown } | null)?.schema;

export function isResultsDocument(value: unknown): boolean {
  const schema = schemaOf(value);
  return typeof schema === 'string' && schema.startsWith(RESULTS_SCHEMA_PREFIX);
}

export function parseNamedResults(value: unknown, file: string, fail: Fail): NamedResults {
  try {
    return { file, ...parseResultsWithOrigin(value, file) };
  } catch (error) {
    if (error instanceof ResultsFormatError) throw fail(error.message);
    throw error;
  }
}

/** Every results document directly in `dir`, in name order; none is an empty list. */
export function readResultsDirectory(dir: string, fail: Fail): NamedResults[] {
  const names = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  return names.flatMap((name) => {
    const file = path.join(dir, name);
    const value = readJson(file, fail);
    return isResultsDocument(value) ? [parseNamedResults(value, file, fail)] : [];
  });
}

/**
 * The documents of one input: a results file, or every results document directly in a folder
 * (a `loglab run --out` folder). A path that does not exist, and a folder with no results file,
 * are refused.
 */
export function readResultsInput(input: string, fail: Fail): NamedResults[] {
  const stat = fs.statSync(input, { throwIfNoEntry: false });
  if (stat === undefined) throw fail(`${input} does not exist; check the path`);
  if (!stat.isDirectory()) return [parseNamedResults(readJson(input, fail), input, fail)];
  const docs = readResultsDirectory(input, fail);
  if (docs.length === 0) throw fail(`${input} holds no results file; pass a run's --out folder`);
  return docs;
}

/** The sentence for a document whose metric contract was inferred (written before it existed). */
export function inferredContractNote(file: string): string {
  return (
    `${file} was written before metrics carried a class and a direction: they were ` +
    'inferred from kind, name and unit (lab/metric-legacy.ts)'
  );
}
