/**
 * The one `loglab` program. Each command lives in its own file under cli/commands/ and registers
 * itself on the program; this file only wires them together and maps errors to exit codes.
 *
 * Exit codes (docs/cli.md lists them, code by code): 0 success; 1 a check failed (corrupt data,
 * a regression, a failed verify); 2 unusable input (bad arguments, a path that does not exist, is
 * not a log or cannot be written, a log locked by another writer, an offset past the log's
 * limit); 3 an unexpected internal error. Every failure is one line on stderr; only exit 3 adds
 * a stack trace, since only there is the program, not the input, to blame.
 */
import { Command, CommanderError } from 'commander';
import { StorageError, type StorageErrorCode } from '../storage/errors.js';
import { LabError, describePathError, isPathErrno, isPathError } from '../lab/errors.js';
import { commands } from './commands/index.js';
import { packageVersion } from '../lab/package-root.js';

export const EXIT_OK = 0;
export const EXIT_CHECK_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

/** Storage refusals caused by what the user asked for: another path, offset or size fixes them. */
export const STORAGE_USAGE_CODES: ReadonlySet<StorageErrorCode> = new Set<StorageErrorCode>([
  'LOG_LOCKED',
  'QUEUE_LOCKED',
  'LOG_NOT_FOUND',
  'LOG_READ_ONLY',
  'OFFSET_LIMIT',
  'INVALID_CONFIG',
  'OFFSET_OUT_OF_RANGE',
  'INVALID_SEGMENT_FILE',
  // A link, directory, FIFO or socket under the name of a log's file: moving it away fixes it.
  'UNSAFE_ENTRY',
  // A queue directory holding a file that is not the queue's: another path fixes it.
  'INVALID_QUEUE_FILE',
  // A line of `append` longer than the log's record limit: the input, not the log, is wrong.
  'RECORD_TOO_LARGE',
  // A queue's body over its maxBodyBytes: likewise.
  'MESSAGE_TOO_LARGE',
  // A native addon (the writer lock, a compression codec) that does not load on this machine.
  'LOCK_UNAVAILABLE',
  'CODEC_UNAVAILABLE',
]);

/** Storage errors that report the data failing a check. */
export const STORAGE_CHECK_CODES: ReadonlySet<StorageErrorCode> = new Set<StorageErrorCode>([
  'LOG_GAP',
  'SEGMENT_NAME_MISMATCH',
  'SEGMENT_OVERLAP',
  'CORRUPT_RECORD',
  'CORRUPT_CHECKPOINT',
  'CORRUPT_BATCH',
]);

export function buildProgram(): Command {
  const program = new Command('loglab')
    .description('A storage performance laboratory: logs vs slots, measured on your own disk.')
    .version(packageVersion(), '-V, --version', 'print the version of loglab')
    .showHelpAfterError(false)
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

function storageExitCode(error: StorageError): number {
  if (STORAGE_USAGE_CODES.has(error.code)) return EXIT_USAGE;
  if (error.code === 'IO_ERROR' && isPathErrno(error.context.reason)) return EXIT_USAGE;
  // The rest (checks of the data, and a disk that failed: EIO, a fenced log) exit 1.
  return EXIT_CHECK_FAILED;
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (error instanceof LabError) {
    return error.code === 'CHECK_FAILED' ? EXIT_CHECK_FAILED : EXIT_USAGE;
  }
  if (error instanceof StorageError) return storageExitCode(error);
  if (isPathError(error)) return EXIT_USAGE;
  return EXIT_INTERNAL;
}

/** The one stderr line for a failure; messages that quote a file may carry newlines of it. */
export function describeFailure(error: unknown): string {
  let text: string;
  if (error instanceof StorageError || error instanceof LabError) {
    text = `${error.code}: ${error.message}`;
  } else if (isPathError(error)) {
    text = describePathError(error);
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  return `loglab: ${text.replace(/\s*[\r\n]+\s*/g, ' ')}`;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return process.exitCode === undefined ? EXIT_OK : Number(process.exitCode);
  } catch (error) {
    const code = exitCodeFor(error);
    // Commander has written its own one line already.
    if (error instanceof CommanderError) return code;
    process.stderr.write(`${describeFailure(error)}\n`);
    if (code === EXIT_INTERNAL && error instanceof Error) {
      process.stderr.write(`${error.stack ?? ''}\n`);
    }
    return code;
  }
}
