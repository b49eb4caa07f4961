/**
 * The results history, read and written as typed runs and metrics (the file: schema.ts). Every
 * row read back is checked against the same rules as a results document's fields, so a file
 * edited by hand fails with the row named rather than as a wrong verdict.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { LabError } from '../errors.js';
import { COMMIT_ID, DIRECTIONS, METRIC_CLASSES, type Metric, metricSchema } from '../results.js';
import { canonicalJson } from './canonical-json.js';
import { type MachineFields, machineFieldsSchema } from './fingerprint.js';
import type { RunRecord, SeriesKey } from './run-record.js';
import { type OpenMode, openHistoryFile } from './schema.js';

export interface HistoryRun extends SeriesKey {
  readonly id: number;
  readonly commit: string;
  readonly dirty: boolean | null;
  readonly startedAt: string;
  readonly machine: MachineFields;
  readonly hostname: string;
  readonly documentSha256: string;
  readonly sourceFile: string;
  readonly addedAt: string;
}

export type HistoryMetric = Pick<
  Metric,
  'name' | 'unit' | 'kind' | 'class' | 'direction' | 'median'
> & {
  readonly labels: NonNullable<Metric['labels']>;
  /** The metric's `samples`, one per round; empty when it was recorded as one value. */
  readonly rounds: readonly number[];
};

/** How many runs of one series the history holds: what a check could have compared with. */
export interface SeriesCount extends SeriesKey {
  readonly machine: MachineFields;
  readonly runs: number;
}

/** A column holding JSON: parsed, then checked by `schema`. */
const json = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, context) => {
    try {
      return schema.parse(JSON.parse(text)) as z.output<T>;
    } catch {
      context.addIssue({ code: 'custom', message: 'is not the JSON it should be' });
      return z.NEVER;
    }
  });

const runRow = z.object({
  id: z.number().int(),
  commit_id: z.string().regex(COMMIT_ID),
  dirty: z.union([z.literal(0), z.literal(1), z.null()]),
  started_at: z.iso.datetime(),
  fingerprint: z.string().length(64),
  machine: json(machineFieldsSchema),
  hostname: z.string(),
  experiment: z.string().min(1),
  parameters: z.string(),
  document_sha256: z.string().length(64),
  source_file: z.string(),
  added_at: z.iso.datetime(),
});

const metricRow = z.object({
  run_id: z.number().int(),
  name: z.string().min(1),
  labels: json(metricSchema.shape.labels.unwrap()),
  unit: z.string().min(1),
  kind: metricSchema.shape.kind,
  class: z.enum(METRIC_CLASSES),
  direction: z.enum(DIRECTIONS),
  median: z.number(),
});

const roundRow = z.object({ name: z.string(), value: z.number() });

const RUN_COLUMNS =
  'id, commit_id, dirty, started_at, fingerprint, machine, hostname, experiment, parameters, ' +
  'document_sha256, source_file, added_at';

function checkedRow<T extends z.ZodType>(schema: T, row: unknown, file: string): z.output<T> {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new LabError(
    'INVALID_HISTORY',
    `history: ${file} holds a row that is not a history's: ${issue?.path.join('.') ?? ''} ` +
      `${issue?.message ?? ''} in ${JSON.stringify(row)}; it was changed by another program`,
  );
}

function toRun(row: z.output<typeof runRow>): HistoryRun {
  return {
    id: row.id,
    commit: row.commit_id,
    dirty: row.dirty === null ? null : row.dirty === 1,
    startedAt: row.started_at,
    fingerprint: row.fingerprint,
    machine: row.machine,
    hostname: row.hostname,
    experimentId: row.experiment,
    parametersKey: row.parameters,
    documentSha256: row.document_sha256,
    sourceFile: row.source_file,
    addedAt: row.added_at,
  };
}

export class HistoryDatabase {
  readonly file: string;
  readonly #db: Database.Database;

  private constructor(file: string, db: Database.Database) {
    this.file = file;
    this.#db = db;
  }

  static open(file: string, mode: OpenMode): HistoryDatabase {
    return new HistoryDatabase(file, openHistoryFile(file, mode));
  }

  close(): void {
    this.#db.close();
  }

  /** Runs `work` in one transaction: all it wrote, or nothing when it throws. */
  inTransaction<T>(work: () => T): T {
    return this.#db.transaction(work).immediate();
  }

  insertRun(record: RunRecord, addedAt: string): void {
    const inserted = this.#db
      .prepare(`INSERT INTO runs (${RUN_COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(
        record.commit,
        record.dirty === null ? null : Number(record.dirty),
        record.startedAt,
        record.fingerprint,
        JSON.stringify(record.machine),
        record.hostname,
        record.experimentId,
        record.parametersKey,
        record.documentSha256,
        record.sourceFile,
        addedAt,
      );
    const runId = Number(inserted.lastInsertRowid);
    const metric = this.#db.prepare('INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const round = this.#db.prepare('INSERT INTO rounds VALUES (?, ?, ?, ?)');
    for (const m of record.metrics) {
      const labels = canonicalJson(m.labels ?? {});
      metric.run(runId, m.name, labels, m.unit, m.kind, m.class, m.direction, m.median);
      (m.samples ?? []).forEach((value, index) => round.run(runId, m.name, index, value));
    }
  }

  #runs(where: string, ...params: unknown[]): HistoryRun[] {
    return this.#db
      .prepare(`SELECT ${RUN_COLUMNS} FROM runs ${where}`)
      .all(...params)
      .map((row) => toRun(checkedRow(runRow, row, this.file)));
  }

  /** The run stored from this document, if any. */
  runOfDocument(documentSha256: string): HistoryRun | undefined {
    return this.#runs('WHERE document_sha256 = ?', documentSha256)[0];
  }

  /** Every run, oldest first. */
  allRuns(): HistoryRun[] {
    return this.#runs('ORDER BY started_at, id');
  }

  /**
   * The `limit` newest runs of a series that started before `before`, newest first, leaving out
   * the document being judged should it be stored already.
   */
  windowRuns(series: SeriesKey, before: string, exceptSha256: string, limit: number): HistoryRun[] {
    return this.#runs(
      'WHERE fingerprint = ? AND experiment = ? AND parameters = ? AND started_at < ? ' +
        'AND document_sha256 <> ? ORDER BY started_at DESC, id DESC LIMIT ?',
      series.fingerprint,
      series.experimentId,
      series.parametersKey,
      before,
      exceptSha256,
      limit,
    );
  }

  /** Each series of an experiment, with its run count. */
  seriesOf(experimentId: string): SeriesCount[] {
    const rows = this.#db
      .prepare(
        'SELECT fingerprint, parameters, MIN(machine) AS machine, COUNT(*) AS runs FROM runs ' +
          'WHERE experiment = ? GROUP BY fingerprint, parameters ORDER BY runs DESC',
      )
      .all(experimentId);
    const series = runRow
      .pick({ fingerprint: true, parameters: true, machine: true })
      .extend({ runs: z.number().int() });
    return rows.map((row) => {
      const checked = checkedRow(series, row, this.file);
      return {
        fingerprint: checked.fingerprint,
        experimentId,
        parametersKey: checked.parameters,
        machine: checked.machine,
        runs: checked.runs,
      };
    });
  }

  /** The metrics of one run, each with its rounds. */
  metricsOf(runId: number): HistoryMetric[] {
    const rounds = new Map<string, number[]>();
    const roundRows = this.#db
      .prepare('SELECT name, value FROM rounds WHERE run_id = ? ORDER BY name, round')
      .all(runId);
    for (const row of roundRows) {
      const { name, value } = checkedRow(roundRow, row, this.file);
      const values = rounds.get(name) ?? [];
      values.push(value);
      rounds.set(name, values);
    }
    return this.#db
      .prepare('SELECT * FROM metrics WHERE run_id = ? ORDER BY name')
      .all(runId)
      .map((row) => {
        const { run_id: _, ...metric } = checkedRow(metricRow, row, this.file);
        return { ...metric, rounds: rounds.get(metric.name) ?? [] };
      });
  }
}
