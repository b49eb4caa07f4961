/**
 * Lab-side errors with a stable code. The CLI maps them to exit codes (see cli/cli.ts):
 * usage mistakes exit 2, failed checks exit 1.
 */
export type LabErrorCode =
  | 'BAD_ARGUMENT'
  | 'NOT_ENOUGH_SPACE'
  | 'NOT_A_DISK'
  | 'UNKNOWN_EXPERIMENT'
  | 'INVALID_RESULTS'
  // A results history (lab/history/) that cannot be used: missing, not one, newer, or conflicting.
  | 'INVALID_HISTORY'
  // A history holding no run to judge a results file against (another machine, experiment).
  | 'NO_USABLE_HISTORY'
  // The SQLite addon (better-sqlite3) did not load on this machine.
  | 'SQLITE_UNAVAILABLE'
  | 'CHECK_FAILED'
  | 'BAD_REF';

export class LabError extends Error {
  readonly code: LabErrorCode;

  constructor(code: LabErrorCode, message: string) {
    super(message);
    this.name = 'LabError';
    this.code = code;
  }
}

/** `--x: expected <accepted>, got '<got>'`, and why it does not qualify when that is not plain. */
export function badArgument(
  argument: string,
  accepted: string,
  got: string,
  why?: string,
): LabError {
  const reason = why === undefined ? '' : ` (${why})`;
  return new LabError('BAD_ARGUMENT', `${argument}: expected ${accepted}, got '${got}'${reason}`);
}

/**
 * errno codes that say the path a user gave cannot be used (it is missing, a file, not
 * writable), as opposed to a disk or a program that failed: what went wrong and what to do.
 */
const WRITABLE_PATH = 'pick a path you may write, or fix its permissions';
const PATH_PROBLEMS: Readonly<Record<string, { readonly what: string; readonly todo: string }>> = {
  ENOENT: { what: 'no such file or directory', todo: 'check the path' },
  ENOTDIR: { what: 'a part of the path is a file, not a directory', todo: 'check the path' },
  EACCES: { what: 'permission denied', todo: WRITABLE_PATH },
  EPERM: { what: 'operation not permitted', todo: WRITABLE_PATH },
  EROFS: { what: 'read-only file system', todo: 'pick a path on a writable file system' },
  EEXIST: { what: 'it already exists', todo: 'remove it or pick another path' },
  EISDIR: { what: 'it is a directory', todo: 'pass a file, not a directory' },
};

/** True for an errno code that means the user's path is unusable (PATH_PROBLEMS). */
export function isPathErrno(errno: unknown): boolean {
  return typeof errno === 'string' && Object.hasOwn(PATH_PROBLEMS, errno);
}

/** A Node fs error (it has a syscall) about an unusable path, as lab code throws them raw. */
export function isPathError(error: unknown): error is NodeJS.ErrnoException {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof syscall === 'string' && isPathErrno(code);
}

/** One line: `mkdir failed on /a/b (ENOTDIR: a part of the path is …); check the path`. */
export function describePathError(error: NodeJS.ErrnoException): string {
  const code = error.code ?? 'unknown';
  const problem = PATH_PROBLEMS[code] ?? { what: error.message, todo: 'check the path' };
  const where = error.path === undefined ? '' : ` on ${error.path}`;
  return (
    `${error.syscall ?? 'a file operation'} failed${where} (${code}: ${problem.what}); ` +
    problem.todo
  );
}
