/**
 * Types for the two calls loglab uses of fs-native-extensions@1.5.1 (Holepunch, CommonJS, ships
 * no types). On Linux `tryLock` is fcntl(F_OFD_SETLK): the lock belongs to the open file
 * description, so a second descriptor conflicts even in the same process and the kernel drops
 * the lock when its holder dies. On macOS it is flock(LOCK_EX | LOCK_NB), on Windows LockFileEx.
 */
declare module 'fs-native-extensions' {
  /**
   * Locks `length` bytes from `offset` (0: to the end of the file, however it grows), exclusively
   * unless `shared`; false when another holder has a conflicting lock (EAGAIN). Other failures
   * (EBADF, ENOLCK) are thrown as errors with a `code`.
   */
  export function tryLock(
    fd: number,
    offset?: number,
    length?: number,
    options?: { readonly shared?: boolean },
  ): boolean;
  export function unlock(fd: number, offset?: number, length?: number): void;
}
