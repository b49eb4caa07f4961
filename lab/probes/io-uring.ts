/**
 * Whether libuv really used io_uring in this process. `UV_USE_IO_URING=1` is a request: libuv
 * ignores it on kernels that refuse rings, and Node versions differ in their default. What shows
 * that it took effect is the ring itself: a file descriptor linked to `anon_inode:[io_uring]`,
 * and the kernel's submission thread (`iou-sqp-<pid>`, libuv uses SQPOLL) among the process's
 * tasks. The thread count beside it shows whether libuv's thread pool was started at all.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface IoUringState {
  /** Descriptors of io_uring instances. */
  readonly rings: number;
  /** Kernel submission-queue polling threads (`iou-sqp-*`). */
  readonly submissionThreads: number;
  /** Kernel workers for requests that had to block (`iou-wrk-*`). */
  readonly workerThreads: number;
  /** Every task of the process, event loop and thread pool included. */
  readonly tasks: number;
}

function listOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function readOrEmpty(file: string, read: (file: string) => string): string {
  try {
    return read(file);
  } catch {
    return '';
  }
}

export function ioUringState(procSelf = '/proc/self'): IoUringState {
  const fdDir = path.join(procSelf, 'fd');
  const rings = listOrEmpty(fdDir).filter(
    (fd) => readOrEmpty(path.join(fdDir, fd), fs.readlinkSync) === 'anon_inode:[io_uring]',
  ).length;
  const taskDir = path.join(procSelf, 'task');
  const names = listOrEmpty(taskDir).map((task) =>
    readOrEmpty(path.join(taskDir, task, 'comm'), (file) => fs.readFileSync(file, 'utf8')).trim(),
  );
  return {
    rings,
    submissionThreads: names.filter((name) => name.startsWith('iou-sqp')).length,
    workerThreads: names.filter((name) => name.startsWith('iou-wrk')).length,
    tasks: names.length,
  };
}

/**
 * Whether the kernel lets this process create rings (/proc/sys/kernel/io_uring_disabled: 0 all,
 * 1 a privileged group only, 2 nobody). Kernels before 6.6 have no such file and allow them.
 */
export function ioUringAllowed(file = '/proc/sys/kernel/io_uring_disabled'): {
  readonly allowed: boolean;
  readonly reason: string;
} {
  let value: string;
  try {
    value = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return { allowed: true, reason: `${file} does not exist: the kernel predates the switch` };
  }
  if (value === '0') return { allowed: true, reason: `${file} is 0` };
  if (value === '1' && typeof process.getuid === 'function' && process.getuid() === 0) {
    return { allowed: true, reason: `${file} is 1 and this process runs as root` };
  }
  return { allowed: false, reason: `${file} is ${value}: the kernel refuses io_uring here` };
}
