import * as fs from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { labErrorOf } from '../../test/fixtures/lab-error.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { HISTORY_APPLICATION_ID, HISTORY_SCHEMA_VERSION, openHistoryFile } from './schema.js';

const tempDir = tempDirs('history-schema');

const refusal = (file: string, mode: 'read' | 'write') =>
  labErrorOf(() => openHistoryFile(file, mode).close());

function sqlite(file: string, statements: string): void {
  const db = new Database(file);
  db.exec(statements);
  db.close();
}

describe('the history file', () => {
  it('is made on the first write, marked by its application id and schema version', () => {
    const file = join(tempDir(), 'h.db');
    openHistoryFile(file, 'write').close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('application_id', { simple: true })).toBe(HISTORY_APPLICATION_ID);
    expect(db.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    db.close();
    openHistoryFile(file, 'read').close();
  });

  it('is never made by a read: a missing file is refused with what to run', () => {
    const file = join(tempDir(), 'missing.db');
    const error = refusal(file, 'read');
    expect(error.code).toBe('INVALID_HISTORY');
    expect(error.message).toBe(
      `history: ${file} does not exist; record runs in it first: loglab history add FILES… ` +
        `--db ${file}`,
    );
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses a file that is not a database, and leaves it as it was', () => {
    const file = join(tempDir(), 'notes.db');
    fs.writeFileSync(file, 'not a database at all, just text\n'.repeat(10));
    for (const mode of ['read', 'write'] as const) {
      expect(refusal(file, mode).message).toMatch(
        /^history: .*notes\.db is not a loglab history \(file is not a database\)/,
      );
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('not a database at all, just text\n'.repeat(10));
  });

  it("refuses another program's SQLite database, naming its tables", () => {
    const file = join(tempDir(), 'other.db');
    sqlite(file, 'CREATE TABLE orders (id INTEGER);');
    expect(refusal(file, 'write').message).toContain(
      'is not a loglab history (an SQLite database of application id 0 with tables orders)',
    );
  });

  it('refuses a history of a newer schema with a request to upgrade', () => {
    const file = join(tempDir(), 'newer.db');
    openHistoryFile(file, 'write').close();
    sqlite(file, `PRAGMA user_version = ${HISTORY_SCHEMA_VERSION + 1};`);
    expect(refusal(file, 'read').message).toBe(
      `history: ${file} is of history schema ${HISTORY_SCHEMA_VERSION + 1}, written by a newer ` +
        `loglab; this one reads schema ${HISTORY_SCHEMA_VERSION}: upgrade loglab`,
    );
  });

  it('refuses to read an empty database as a history', () => {
    const file = join(tempDir(), 'empty.db');
    sqlite(file, 'PRAGMA user_version = 0;');
    expect(refusal(file, 'read').message).toContain('is an empty database, no history yet');
  });
});
