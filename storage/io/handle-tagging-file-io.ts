import { DelegatingFileIO } from './delegating-file-io.js';
import type { FileHandle } from './file-io.js';

/**
 * A DelegatingFileIO that keeps, for each handle opened through it and not yet closed, what
 * `tag` made of its path when it was opened: the decorators that account writes or syncs by
 * file (a trace, a durability watermark, cold reads) need the file behind a handle, and only
 * `open` is told it.
 */
export abstract class HandleTaggingFileIO<Tag> extends DelegatingFileIO {
  readonly #tags = new Map<FileHandle, Tag>();

  /** What a handle to `filePath` is known by; called once per open (`direct`: by openDirect). */
  protected abstract tag(filePath: string, direct: boolean): Tag;

  override open(filePath: string, options: { create: boolean }): FileHandle {
    return this.#track(super.open(filePath, options), filePath);
  }

  override openReadOnly(filePath: string): FileHandle {
    return this.#track(super.openReadOnly(filePath), filePath);
  }

  override openDirect(filePath: string): FileHandle | null {
    const handle = super.openDirect(filePath);
    return handle === null ? null : this.#track(handle, filePath, true);
  }

  override close(handle: FileHandle): void {
    try {
      super.close(handle);
    } finally {
      this.#tags.delete(handle);
    }
  }

  override closeAsync(handle: FileHandle): Promise<void> {
    // Forgotten at once: a later open may get the same number before this close's callback runs.
    this.#tags.delete(handle);
    return super.closeAsync(handle);
  }

  /** The tag of an open handle; undefined for one not opened through this FileIO. */
  protected tagOf(handle: FileHandle): Tag | undefined {
    return this.#tags.get(handle);
  }

  #track(handle: FileHandle, filePath: string, direct = false): FileHandle {
    this.#tags.set(handle, this.tag(filePath, direct));
    return handle;
  }
}
