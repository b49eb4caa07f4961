import { describe, expect, it } from 'vitest';
import type { FileHandle } from './file-io.js';
import { HandleTaggingFileIO } from './handle-tagging-file-io.js';
import { SimDisk } from '../sim/sim-disk.js';

/** Tags each handle with its path, and shows the tag a handle has now. */
class PathTags extends HandleTaggingFileIO<string> {
  protected tag(filePath: string): string {
    return filePath;
  }

  tagNow(handle: FileHandle): string | undefined {
    return this.tagOf(handle);
  }
}

describe('HandleTaggingFileIO', () => {
  it('forgets a handle as soon as its close is asked for, on the event loop or the thread pool', async () => {
    const io = new PathTags(new SimDisk({ seed: 1 }));
    io.mkdirp('/data');
    const closed = io.open('/data/closed', { create: true });
    const pooled = io.open('/data/pooled', { create: true });
    expect([io.tagNow(closed), io.tagNow(pooled)]).toEqual(['/data/closed', '/data/pooled']);
    io.close(closed);
    expect(io.tagNow(closed)).toBeUndefined();
    // Before the close settles: a real pool may release the number to the next open first.
    const closing = io.closeAsync(pooled);
    expect(io.tagNow(pooled)).toBeUndefined();
    await closing;
  });
});
