/**
 * Stand-ins for libuv's thread pool in tests: a group's fdatasync on the pool, its outcome
 * reaching the event loop a few ms later, so the code under test can run meanwhile.
 */
import type { FileHandle } from '../io/file-io.js';
import { DelegatingFileIO } from '../io/delegating-file-io.js';

const POOL_DELAY_MS = 5;

/** The sync runs at once; its outcome arrives later (a roll or flush can slip in between). */
export class PoolIO extends DelegatingFileIO {
  override fdatasyncAsync(handle: FileHandle): Promise<void> {
    let failure: unknown = null;
    try {
      this.inner.fdatasync(handle);
    } catch (error) {
      failure = error;
    }
    return new Promise((resolve, reject) =>
      setTimeout(() => (failure === null ? resolve() : reject(failure)), POOL_DELAY_MS),
    );
  }
}

/** A worker slow to start: the sync itself runs later (a close can slip in before it). */
export class SlowPoolIO extends DelegatingFileIO {
  override fdatasyncAsync(handle: FileHandle): Promise<void> {
    return new Promise((resolve, reject) =>
      setTimeout(() => {
        try {
          this.inner.fdatasync(handle);
          resolve();
        } catch (error) {
          reject(error as Error);
        }
      }, POOL_DELAY_MS),
    );
  }
}
