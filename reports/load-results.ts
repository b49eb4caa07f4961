/**
 * Turns what the caller hands the report (results file paths, directories of them, or documents
 * already in memory) into validated documents. A file that does not validate becomes one warning
 * line naming the file and the field; the others still make their report.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseResults, readResultsFile, ResultsFormatError, type Results } from '../lab/results.js';

/** A results file path, a directory holding `*.json` results files, or a document. */
export type ReportInput = string | Results;

export interface LoadedResults {
  /** Where the document came from: its file path, or `<document N>` for one handed in memory. */
  readonly source: string;
  readonly results: Results;
}

export interface LoadOutcome {
  readonly documents: readonly LoadedResults[];
  /** One line per input left out: `file: field: what is wrong`. */
  readonly warnings: readonly string[];
}

function warningFor(source: string, error: unknown): string {
  if (error instanceof ResultsFormatError) {
    const firstLine = error.message.split('\n')[0] ?? error.message;
    const detail = firstLine.slice(`lab: ${error.file}: ${error.field}: `.length);
    return `${source}: ${error.field}: ${detail}`;
  }
  return `${source}: (file): ${(error as Error).message}`;
}

function expandInput(input: string): readonly string[] {
  const isDirectory = fs.existsSync(input) && fs.statSync(input).isDirectory();
  if (!isDirectory) return [input];
  return fs
    .readdirSync(input)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => path.join(input, name));
}

export function loadResults(inputs: readonly ReportInput[]): LoadOutcome {
  const documents: LoadedResults[] = [];
  const warnings: string[] = [];
  inputs.forEach((input, index) => {
    const files = typeof input === 'string' ? expandInput(input) : [null];
    if (files.length === 0) {
      warnings.push(`${String(input)}: (file): holds no *.json results files`);
    }
    for (const file of files) {
      const source = file ?? `<document ${index + 1}>`;
      try {
        const results = file === null ? parseResults(input, source) : readResultsFile(file);
        documents.push({ source, results });
      } catch (error) {
        warnings.push(warningFor(source, error));
      }
    }
  });
  return { documents, warnings };
}
