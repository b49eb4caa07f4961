/**
 * The results history's file: one SQLite database (better-sqlite3), `loglab-history.db` unless
 * `--db` names another. Layout, history schema 1:
 *
 *   PRAGMA application_id  0x4C4C4849 ('LLHI'): this file is a loglab history
 *   PRAGMA user_version    1: the history schema; a newer one is refused, never guessed at
 *
 *   runs     one results document: id, commit_id, dirty (1, 0, NULL unknown), started_at
 *            (ISO 8601 UTC, milliseconds), fingerprint (SHA-256 hex of the machine fields),
 *            machine (those fields, JSON), hostname, experiment, parameters (canonical JSON of
 *            quick and parameters), document_sha256 (UNIQUE: a document is stored once),
 *            source_file, added_at
 *   metrics  one metric of a run, keyed (run_id, name): labels (canonical JSON), unit, kind,
 *            class, direction, median
 *   rounds   one round's value of a metric, keyed (run_id, name, round): the metric's
 *            `samples` in order; none for a metric recorded as one value
 *
 * Tables are STRICT and their enums CHECKed, so a row of another shape cannot be written; rows
 * are checked again when read (database.ts). One file, written in rollback-journal mode: a
 * transaction that fails or a process that dies leaves the file as the last commit left it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { LabError } from '../errors.js';
import { DIRECTIONS, METRIC_CLASSES, metricSchema } from '../results.js';

export const DEFAULT_HISTORY_FILE = 'loglab-history.db';
export const HISTORY_APPLICATION_ID = 0x4c4c4849;
export const HISTORY_SCHEMA_VERSION = 1;

const METRIC_KINDS = metricSchema.shape.kind.options;
const listed = (values: readonly string[]) => values.map((value) => `'${value}'`).join(', ');

const CREATE_TABLES = `
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  commit_id TEXT NOT NULL CHECK (length(commit_id) IN (40, 64)),
  dirty INTEGER CHECK (dirty IN (0, 1)),
  started_at TEXT NOT NULL,
  fingerprint TEXT NOT NULL CHECK (length(fingerprint) = 64),
  machine TEXT NOT NULL,
  hostname TEXT NOT NULL,
  experiment TEXT NOT NULL,
  parameters TEXT NOT NULL,
  document_sha256 TEXT NOT NULL UNIQUE,
  source_file TEXT NOT NULL,
  added_at TEXT NOT NULL
) STRICT;
CREATE INDEX runs_by_series ON runs (fingerprint, experiment, parameters, started_at);
CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs (id),
  name TEXT NOT NULL,
  labels TEXT NOT NULL,
  unit TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN (${listed(METRIC_KINDS)})),
  class TEXT NOT NULL CHECK (class IN (${listed(METRIC_CLASSES)})),
  direction TEXT NOT NULL CHECK (direction IN (${listed(DIRECTIONS)})),
  median REAL NOT NULL,
  PRIMARY KEY (run_id, name)
) STRICT, WITHOUT ROWID;
CREATE INDEX metrics_by_name ON metrics (name);
CREATE TABLE rounds (
  run_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  round INTEGER NOT NULL CHECK (round >= 0),
  value REAL NOT NULL,
  PRIMARY KEY (run_id, name, round),
  FOREIGN KEY (run_id, name) REFERENCES metrics (run_id, name)
) STRICT, WITHOUT ROWID;
`;

/** `read` never creates or changes the file; `write` creates it when missing. */
export type OpenMode = 'read' | 'write';

function invalid(message: string): LabError {
  return new LabError('INVALID_HISTORY', `history: ${message}`);
}

function notAHistory(file: string, why: string): LabError {
  return invalid(
    `${file} is not a loglab history (${why}); pass the file 'loglab history add' made`,
  );
}

function connect(file: string, mode: OpenMode): Database.Database {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined && mode === 'read') {
    throw invalid(
      `${file} does not exist; record runs in it first: loglab history add FILES… --db ${file}`,
    );
  }
  if (stat?.isDirectory() === true) throw invalid(`${file} is a directory; pass a file`);
  if (!fs.existsSync(path.dirname(path.resolve(file)))) {
    throw invalid(`the folder of ${file} does not exist; create it or pick another path`);
  }
  try {
    return new Database(file, { readonly: mode === 'read', fileMustExist: mode === 'read' });
  } catch (error) {
    if (error instanceof Database.SqliteError) throw notAHistory(file, error.message);
    throw new LabError(
      'SQLITE_UNAVAILABLE',
      `history: the SQLite addon (better-sqlite3) did not load: ${(error as Error).message}; ` +
        'reinstall loglab with g++, make, python3 and Node.js headers at hand (docs/ci.md)',
    );
  }
}

interface FileHeader {
  readonly applicationId: number;
  readonly schemaVersion: number;
  readonly tables: readonly string[];
}

function readHeader(db: Database.Database, file: string): FileHeader {
  try {
    return {
      applicationId: Number(db.pragma('application_id', { simple: true })),
      schemaVersion: Number(db.pragma('user_version', { simple: true })),
      tables: db
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all(),
    };
  } catch (error) {
    if (error instanceof Database.SqliteError) throw notAHistory(file, error.message);
    throw error;
  }
}

function createSchema(db: Database.Database): void {
  db.transaction(() => {
    db.exec(CREATE_TABLES);
    db.pragma(`application_id = ${HISTORY_APPLICATION_ID}`);
    db.pragma(`user_version = ${HISTORY_SCHEMA_VERSION}`);
  }).immediate();
}

/** Refuses what is not a history of a schema this loglab reads; makes an empty file one. */
function checkFormat(db: Database.Database, file: string, mode: OpenMode): void {
  const header = readHeader(db, file);
  const empty = header.applicationId === 0 && header.tables.length === 0;
  if (empty && mode === 'write') {
    createSchema(db);
    return;
  }
  if (empty) {
    throw invalid(`${file} is an empty database, no history yet; record runs with 'history add'`);
  }
  if (header.applicationId !== HISTORY_APPLICATION_ID) {
    const holds = header.tables.length === 0 ? 'no table' : `tables ${header.tables.join(', ')}`;
    throw notAHistory(
      file,
      `an SQLite database of application id ${header.applicationId} with ${holds}`,
    );
  }
  if (header.schemaVersion > HISTORY_SCHEMA_VERSION) {
    throw invalid(
      `${file} is of history schema ${header.schemaVersion}, written by a newer loglab; ` +
        `this one reads schema ${HISTORY_SCHEMA_VERSION}: upgrade loglab`,
    );
  }
  if (header.schemaVersion < 1) {
    throw notAHistory(file, `its history schema is ${header.schemaVersion}`);
  }
}

/** Opens the history at `file`, checked to be one this loglab reads. */
export function openHistoryFile(file: string, mode: OpenMode): Database.Database {
  const db = connect(file, mode);
  try {
    db.pragma('foreign_keys = ON');
    checkFormat(db, file, mode);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
