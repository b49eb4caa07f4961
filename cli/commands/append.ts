/**
 * `loglab append DIR`: one record per line of standard input.
 *
 * It always says on stdout what it stored, even when it then fails: an append that stops at line
 * 3 has stored lines 1-2, and a user who retries everything would store them twice. Under
 * `group` and `always` only what the log acknowledged counts as stored; what was appended and
 * then not acknowledged is printed on a line of its own, so it can be checked before a retry.
 * The error line of a stop says the same: `append: stored offsets 0–1; line 3 refused: …`.
 */
import type { Command } from 'commander';
import { StorageError, isStorageError } from '../../storage/errors.js';
import { Log } from '../../storage/log/log.js';
import { appendStopped } from '../../storage/log/log-errors.js';
import type { LogOptions } from '../../storage/log/log-config.js';
import { describeRecovery, type RecoveryReport } from '../../storage/log/recovery-report.js';
import { DURABILITY_POLICIES } from '../../storage/io/durability.js';
import { MAX_POSITION_BYTES, asOffset } from '../../storage/units.js';
import { parseByteSize, parseChoice, parseIntegerArgument } from '../arguments.js';

interface AppendOptions {
  baseOffset?: string;
  segmentBytes?: string;
  indexInterval?: string;
  durability: string;
}

/** Something that failed, kept until what was stored has been printed. */
interface Failure {
  readonly error: unknown;
}

/**
 * Offsets are exact up to 2^53 - 1 and the log's end offset must stay exact, so the last offset a
 * record can take, and thus the largest useful base offset, is one below that.
 */
export const MAX_BASE_OFFSET = Number.MAX_SAFE_INTEGER - 1;

function logOptions(options: AppendOptions): LogOptions {
  const { baseOffset, segmentBytes, indexInterval } = options;
  return {
    ...(baseOffset === undefined
      ? {}
      : { baseOffset: parseIntegerArgument('--base-offset', baseOffset, 0, MAX_BASE_OFFSET) }),
    ...(segmentBytes === undefined
      ? {}
      : { segmentBytes: parseByteSize('--segment-bytes', segmentBytes, 1024, MAX_POSITION_BYTES) }),
    ...(indexInterval === undefined
      ? {}
      : { indexIntervalBytes: parseByteSize('--index-interval', indexInterval) }),
    durability: parseChoice('--durability', options.durability, DURABILITY_POLICIES),
  };
}

/** Splits standard input into lines (bodies without their newline), as raw bytes. */
async function readLines(input: NodeJS.ReadableStream): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  }
  const all = Buffer.concat(chunks);
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = all.indexOf(0x0a); newline >= 0; newline = all.indexOf(0x0a, start)) {
    lines.push(all.subarray(start, newline));
    start = newline + 1;
  }
  if (start < all.length) lines.push(all.subarray(start));
  return lines;
}

/** How many entries a list field of the report holds; 0 when this version has no such field. */
function entriesIn(report: RecoveryReport, field: 'warnings' | 'removedSegments'): number {
  // RecoveryReport is changing (warnings added, removedSegments going): read both either way.
  const fields = report as unknown as Readonly<Record<string, unknown>>;
  const value = field in report ? fields[field] : [];
  return Array.isArray(value) ? value.length : 0;
}

/**
 * Whether opening did anything worth telling: a cut, removed segments, bytes scanned, or a
 * warning. An open that cut a torn tail exactly at the recovery point scanned nothing and still
 * discarded bytes, so the scan alone does not decide.
 */
export function recoveryWorthTelling(report: RecoveryReport): boolean {
  if (report.startedFrom === 'new-log') return false;
  return (
    report.truncation !== null ||
    entriesIn(report, 'removedSegments') > 0 ||
    report.scannedBytes > 0 ||
    entriesIn(report, 'warnings') > 0
  );
}

/**
 * Appends every line of standard input, one record each; stops at the first that fails, the
 * lines before it kept (Log.appendEachNoWait). Never throws.
 */
async function appendInput(log: Log): Promise<{ appended: number; failure: Failure | null }> {
  try {
    const lines = await readLines(process.stdin);
    log.appendEachNoWait(lines);
    return { appended: lines.length, failure: null };
  } catch (error) {
    const stored = isStorageError(error) ? error.context.stored : null;
    const appended = stored == null ? 0 : stored.lastOffset - stored.firstOffset + 1;
    return { appended, failure: { error } };
  }
}

/**
 * The append's own failure, told the way stdout told what was stored: `append: stored offsets
 * 0–299; line 301 refused: <why>`. Other failures (reading standard input) are passed on.
 */
function stoppedAtLine(error: unknown, firstOffset: number, storedEnd: number): unknown {
  if (!isStorageError(error) || error.context.recordIndex === undefined) return error;
  const cause = error.cause instanceof StorageError ? error.cause : error;
  const stored = storedEnd > firstOffset ? { firstOffset, lastOffset: storedEnd - 1 } : null;
  const line = error.context.recordIndex + 1;
  return appendStopped(cause, stored, line - 1, `line ${line}`, storedEnd);
}

/**
 * Waits for the acknowledgement of the last append. Under `none` and `always` an append that
 * returned was written (and synced) already; after a failed append the log may be fenced and
 * would refuse to acknowledge even those, so only `group` waits then.
 */
async function acknowledge(
  log: Log,
  lastOffset: number,
  appendFailed: boolean,
): Promise<Failure | null> {
  if (appendFailed && log.config.durability !== 'group') return null;
  try {
    await log.acknowledged(asOffset(lastOffset));
    return null;
  } catch (error) {
    return { error };
  }
}

async function closeLog(log: Log): Promise<Failure | null> {
  try {
    await log.close();
    return null;
  } catch (error) {
    return { error };
  }
}

function shortReason(failure: Failure | null): string {
  const error = failure?.error;
  if (error instanceof StorageError) return error.code;
  return error instanceof Error ? error.name : 'unknown';
}

/** Offsets [first, stored) are vouched for; [stored, appended) were appended and not. */
interface Outcome {
  readonly firstOffset: number;
  readonly storedEnd: number;
  readonly appendedEnd: number;
  readonly unvouched: Failure | null;
}

/** `appended N records: first offset F, last offset L`, and the unacknowledged rest apart. */
function printStored({ firstOffset, storedEnd, appendedEnd, unvouched }: Outcome): void {
  const range = (from: number, to: number) =>
    `appended ${to - from} records: first offset ${from}, last offset ${to - 1}`;
  if (appendedEnd === firstOffset) {
    process.stdout.write(`appended 0 records; the next offset is ${firstOffset}\n`);
    return;
  }
  if (storedEnd > firstOffset) process.stdout.write(`${range(firstOffset, storedEnd)}\n`);
  if (appendedEnd > storedEnd) {
    process.stdout.write(
      `${range(storedEnd, appendedEnd)} (not acknowledged: ` +
        `${shortReason(unvouched)}; check them with loglab read before appending them again)\n`,
    );
  }
}

async function appendCommand(dir: string, options: AppendOptions): Promise<void> {
  const log = Log.open(dir, logOptions(options));
  if (recoveryWorthTelling(log.recovery)) {
    process.stderr.write(`${describeRecovery(log.recovery)}\n`);
  }
  const firstOffset: number = log.endOffset;
  const { appended, failure } = await appendInput(log);
  const appendedEnd = firstOffset + appended;
  const ackFailure =
    appended === 0 ? null : await acknowledge(log, appendedEnd - 1, failure !== null);
  const closeFailure = await closeLog(log);
  const unvouched = ackFailure ?? closeFailure;
  // After a failed acknowledgement or close, only what reached the device is vouched for.
  const storedEnd =
    unvouched === null
      ? appendedEnd
      : Math.min(appendedEnd, Math.max(firstOffset, log.syncedEndOffset));
  printStored({ firstOffset, storedEnd, appendedEnd, unvouched });
  if (failure !== null) throw stoppedAtLine(failure.error, firstOffset, storedEnd);
  const first = ackFailure ?? closeFailure;
  if (first !== null) throw first.error;
}

export function registerAppendCommand(program: Command): void {
  program
    .command('append')
    .description(
      'append one record per line of standard input and print the first and last ' +
        'offsets; on a failure, still print what was stored',
    )
    .argument('<dir>', 'log directory (created when missing)')
    .option('--base-offset <n>', `first offset of a new log (0 to ${MAX_BASE_OFFSET})`)
    .option('--segment-bytes <size>', 'start a new segment past this size (default 64MiB)')
    .option('--index-interval <size>', 'bytes between index entries, 0 = dense (default 4096)')
    .option(
      '--durability <policy>',
      `when an append is acknowledged: ${DURABILITY_POLICIES.join(', ')}`,
      'none',
    )
    .action(appendCommand);
}
