/**
 * A FileLock (file-io.ts) held through an open handle of a FileIO: what NodeFileIO's kernel lock
 * and the simulated disk's lock both hand out.
 */
import { assert } from '../errors.js';
import type { FileHandle, FileIO, FileLock } from './file-io.js';

/**
 * A lock held through an open handle of `io`: its note is written with `io`'s own calls (so they
 * are counted), and release runs `unlock` and then closes the handle.
 */
export class HandleLock implements FileLock {
  readonly #io: FileIO;
  readonly #handle: FileHandle;
  readonly #unlock: () => void;
  #released = false;

  constructor(io: FileIO, handle: FileHandle, unlock: () => void) {
    this.#io = io;
    this.#handle = handle;
    this.#unlock = unlock;
  }

  writeHolder(description: string): void {
    assert(!this.#released, 'writeHolder after release');
    const bytes = Buffer.from(description, 'utf8');
    this.#io.truncate(this.#handle, 0);
    this.#io.write(this.#handle, bytes, 0, bytes.length, 0);
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    try {
      this.#unlock();
    } finally {
      this.#io.close(this.#handle);
    }
  }
}
