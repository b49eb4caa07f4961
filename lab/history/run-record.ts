/**
 * A results document as the history keeps it: which series it belongs to (machine fingerprint,
 * experiment, parameters), when it started, the commit that ran, and a hash of the document that
 * tells the same run added twice.
 *
 * A series is what a check compares within: one machine, one experiment, one set of parameters
 * (a quick run and a full one, or two `--seconds` budgets, measure different workloads).
 */
import { createHash } from 'node:crypto';
import { LabError } from '../errors.js';
import type { NamedResults } from '../results-documents.js';
import { COMMIT_ID, type Metric } from '../results.js';
import { canonicalJson } from './canonical-json.js';
import { fingerprintOf, type MachineFields, machineFields } from './fingerprint.js';

export interface SeriesKey {
  readonly fingerprint: string;
  readonly experimentId: string;
  /** Canonical JSON of `{ quick, parameters }`. */
  readonly parametersKey: string;
}

export interface RunIdentity extends SeriesKey {
  readonly machine: MachineFields;
  readonly hostname: string;
  /** The results' `startedAt`, as `Date#toISOString` writes it, so text order is time order. */
  readonly startedAt: string;
  /** SHA-256 of the validated document: the same run read from any copy of its file. */
  readonly documentSha256: string;
  readonly sourceFile: string;
  readonly metrics: readonly Metric[];
}

export interface RunRecord extends RunIdentity {
  readonly commit: string;
  /** Whether the tree was dirty; null when `--commit` named another commit than the file's. */
  readonly dirty: boolean | null;
}

export function runIdentity(doc: NamedResults): RunIdentity {
  const { results } = doc;
  const machine = machineFields(results.environment);
  return {
    fingerprint: fingerprintOf(machine),
    experimentId: results.experiment.id,
    parametersKey: canonicalJson({ quick: results.quick, parameters: results.parameters }),
    machine,
    hostname: results.environment.hostname,
    startedAt: new Date(results.startedAt).toISOString(),
    documentSha256: createHash('sha256').update(canonicalJson(results)).digest('hex'),
    sourceFile: doc.file,
    metrics: results.metrics,
  };
}

/** Checks a `--commit` value: a full commit id, as the results record them. */
export function parseCommit(raw: string): string {
  const commit = raw.trim().toLowerCase();
  if (COMMIT_ID.test(commit)) return commit;
  throw new LabError(
    'BAD_ARGUMENT',
    `--commit: expected a full commit id (40 hex digits, as \`git rev-parse HEAD\` prints), ` +
      `got '${raw}'`,
  );
}

/**
 * The run as the history records it: the commit given (`--commit`) or else the one the file
 * records; refused when there is neither.
 */
export function runRecord(doc: NamedResults, commit: string | undefined): RunRecord {
  const recorded = doc.results.environment.git ?? null;
  if (commit === undefined && recorded === null) {
    throw new LabError(
      'INVALID_RESULTS',
      `history: ${doc.file} records no commit (it was written outside a git checkout of ` +
        'loglab, or before results recorded one); pass --commit with the commit it measured',
    );
  }
  const chosen = commit ?? recorded!.commit;
  const dirty = recorded !== null && recorded.commit === chosen ? recorded.dirty : null;
  return { ...runIdentity(doc), commit: chosen, dirty };
}
