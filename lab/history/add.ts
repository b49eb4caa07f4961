/**
 * `loglab history add`: results documents into the history, in one transaction, so the history
 * holds all of them or none (a file that fails half-way leaves it as it was).
 *
 * Adding a document the history already holds is idempotent: it is skipped and said so, since a
 * CI job that retries should not fail or count a run twice. The same document under another
 * commit is refused: a run measured one commit, and one of the two commits is wrong.
 */
import { LabError } from '../errors.js';
import type { HistoryDatabase, HistoryRun } from './database.js';
import type { RunRecord } from './run-record.js';

export interface AddOutcome {
  readonly added: readonly RunRecord[];
  /** Documents the history held already, with the run that holds them. */
  readonly skipped: readonly { readonly record: RunRecord; readonly stored: HistoryRun }[];
}

function conflict(record: RunRecord, stored: HistoryRun, file: string): LabError {
  return new LabError(
    'INVALID_HISTORY',
    `history: ${record.sourceFile} is already in ${file} as commit ${stored.commit} ` +
      `(added ${stored.addedAt} from ${stored.sourceFile}), not ${record.commit}; nothing was ` +
      'added: one of the two commits is wrong, so pass the right one with --commit',
  );
}

/** Adds every record or none; `addedAt` is the time written beside each. */
export function addRuns(
  db: HistoryDatabase,
  records: readonly RunRecord[],
  addedAt: string,
): AddOutcome {
  return db.inTransaction(() => {
    const added: RunRecord[] = [];
    const skipped: { record: RunRecord; stored: HistoryRun }[] = [];
    for (const record of records) {
      const stored = db.runOfDocument(record.documentSha256);
      if (stored === undefined) {
        db.insertRun(record, addedAt);
        added.push(record);
      } else if (stored.commit === record.commit) {
        skipped.push({ record, stored });
      } else {
        throw conflict(record, stored, db.file);
      }
    }
    return { added, skipped };
  });
}
