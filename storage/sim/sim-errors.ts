/**
 * Errors of the simulated disk, shaped exactly like NodeFileIO's: the simulated "system call"
 * throws an errno exception like node:fs does (`code`, `errno`, `syscall`, `path`), and the disk
 * wraps it into the same StorageError 'IO_ERROR' with `reason` = errno code and the same message.
 * The log above must not be able to tell a simulated failure from a real one.
 */
import { StorageError } from '../errors.js';

export type SimErrno =
  | 'EIO'
  | 'ENOSPC'
  | 'EMFILE'
  | 'ENOENT'
  | 'EEXIST'
  | 'EISDIR'
  | 'ENOTDIR'
  | 'ENOTEMPTY'
  | 'EBADF'
  | 'EINVAL';

// Linux errno numbers, negated as libuv reports them in `err.errno`.
const ERRNO: Record<SimErrno, { errno: number; description: string }> = {
  EIO: { errno: -5, description: 'i/o error' },
  ENOSPC: { errno: -28, description: 'no space left on device' },
  EMFILE: { errno: -24, description: 'too many open files' },
  ENOENT: { errno: -2, description: 'no such file or directory' },
  EEXIST: { errno: -17, description: 'file already exists' },
  EISDIR: { errno: -21, description: 'illegal operation on a directory' },
  ENOTDIR: { errno: -20, description: 'not a directory' },
  ENOTEMPTY: { errno: -39, description: 'directory not empty' },
  EBADF: { errno: -9, description: 'bad file descriptor' },
  EINVAL: { errno: -22, description: 'invalid argument' },
};

/** What node:fs would throw for this errno, marked as simulated in its message. */
export function errnoException(
  code: SimErrno,
  syscall: string,
  file?: string,
): NodeJS.ErrnoException {
  const where = file === undefined ? '' : ` '${file}'`;
  const error: NodeJS.ErrnoException = new Error(
    `${code}: ${ERRNO[code].description} (simulated), ${syscall}${where}`,
  );
  error.code = code;
  error.errno = ERRNO[code].errno;
  error.syscall = syscall;
  if (file !== undefined) error.path = file;
  return error;
}

export function isErrnoException(value: unknown): value is NodeJS.ErrnoException {
  return value instanceof Error && typeof (value as NodeJS.ErrnoException).code === 'string';
}

/** NodeFileIO's own: the same text and context whichever disk failed. */
export { ioError } from '../errors.js';

/** Same text and context as NodeFileIO's error when retried short writes make no progress. */
export function shortWriteError(
  file: string,
  positionBytes: number,
  doneBytes: number,
  lengthBytes: number,
): StorageError {
  return new StorageError(
    'SHORT_IO',
    `write to ${file} stopped after ${doneBytes} of ${lengthBytes} bytes; the disk may be full`,
    { file, positionBytes, sizeBytes: lengthBytes },
  );
}

/**
 * Thrown by every call after a simulated power cut: the process would be dead, so nothing it does
 * afterwards may reach the disk. Not a StorageError on purpose — no code should handle it.
 */
export class SimPowerCutError extends Error {
  readonly code = 'SIM_POWER_CUT';

  constructor(operation: string) {
    super(
      `sim-disk: ${operation} after the simulated power cut; call crash() to get the disk back`,
    );
    this.name = 'SimPowerCutError';
  }
}
