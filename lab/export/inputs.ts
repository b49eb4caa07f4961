/**
 * What `loglab export` reads: results files, or directories of them (a `loglab run --out`
 * folder: every results file directly inside, other JSON such as charts skipped), as
 * `compare DIR DIR` reads them. One run of each experiment: two documents of one experiment
 * would give two series the same names, so they are refused. The baseline of a JUnit report is
 * matched to them by experiment id.
 */
import { LabError } from '../errors.js';
import { type NamedResults, inferredContractNote, readResultsInput } from '../results-documents.js';

function unusable(message: string): LabError {
  return new LabError('INVALID_RESULTS', `export: ${message}`);
}

const readPath = (input: string): NamedResults[] => readResultsInput(input, unusable);

/** The documents of every file and directory given, refusing an experiment given twice. */
export function readExportInputs(inputs: readonly string[]): NamedResults[] {
  const byId = new Map<string, NamedResults>();
  const problems: string[] = [];
  for (const doc of inputs.flatMap(readPath)) {
    const id = doc.results.experiment.id;
    const other = byId.get(id);
    if (other !== undefined) problems.push(`${id} is in both ${other.file} and ${doc.file}`);
    byId.set(id, doc);
  }
  if (problems.length > 0) {
    throw unusable(`one run of each experiment, please: ${problems.join('; ')}`);
  }
  return [...byId.values()];
}

/**
 * Each document paired with the baseline of its experiment, read from a results file or a
 * directory of them. The baseline may hold experiments this run left out (a few experiments
 * judged against a whole suite); an experiment with no baseline is refused.
 */
export function pairWithBaseline(
  current: readonly NamedResults[],
  baseline: string,
): [NamedResults, NamedResults][] {
  const baselines = new Map(readPath(baseline).map((doc) => [doc.results.experiment.id, doc]));
  const missing = current
    .map((doc) => doc.results.experiment.id)
    .filter((id) => !baselines.has(id));
  if (missing.length > 0) {
    throw unusable(
      `${baseline} holds no baseline for ${missing.join(', ')}; pass a baseline ` +
        'run of the same experiments',
    );
  }
  return current.map((doc) => [baselines.get(doc.results.experiment.id)!, doc]);
}

/** Warnings for documents whose metric contract was inferred (written before it existed). */
export function inferredContractWarnings(docs: readonly NamedResults[]): string[] {
  return docs.filter((doc) => doc.contractInferred).map((doc) => inferredContractNote(doc.file));
}
