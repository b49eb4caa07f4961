import { readdirSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Log } from '../../storage/index.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { dropSealedSegments } from './settled-retention.js';

const newDir = tempDirs('settled-retention');
const BODY = Buffer.alloc(1000, 0x72);

/** The files this process holds open, by path (Linux's /proc). */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return []; // closed between the listing and the read
    }
  });
}

describe('dropSealedSegments', () => {
  it('returns once the removed segments are gone and their files closed', async () => {
    const log = Log.open(newDir(), { durability: 'none', segmentBytes: 64 * 1024 });
    try {
      while (log.segments().length < 4) log.appendNoWait(BODY);
      const removed = log
        .segments()
        .slice(0, 3)
        .map((segment) => segment.logPath);
      await dropSealedSegments(log);
      expect(log.segments()).toHaveLength(1);
      // A file closed after its unlink shows as "<path> (deleted)" while still open.
      const stillOpen = openFiles().filter((file) => removed.some((p) => file.startsWith(p)));
      expect(stillOpen).toEqual([]);
    } finally {
      await log.close();
    }
  });
});
