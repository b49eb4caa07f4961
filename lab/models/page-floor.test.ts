import { describe, expect, it } from 'vitest';
import { alignedWriteStart } from '../../storage/record/page-alignment.js';
import {
  alignedFloorBytesPerAppend,
  alignedSegmentBytesPerRecord,
  blocksPerAppend,
  pageFloorBytesPerAppend,
} from './page-floor.js';

describe('the page floor of a synced append', () => {
  it('is one block for records that tile the block, as fio 1 KiB writes do', () => {
    expect(blocksPerAppend(1024, 4096)).toBe(1);
    expect(blocksPerAppend(4096, 4096)).toBe(1);
    expect(blocksPerAppend(512, 4096)).toBe(1);
  });

  it('is 1.25 blocks for a 1 KiB body behind its 16-byte header: 5,120 bytes', () => {
    expect(blocksPerAppend(1040, 4096)).toBe(1.25);
    expect(pageFloorBytesPerAppend(1040, 4096)).toBe(5120);
  });

  it('matches appending records one after another and counting the blocks each touches', () => {
    for (const recordBytes of [1, 100, 1040, 3000, 4097, 9000, 12_288]) {
      const blockBytes = 4096;
      let positionBytes = 0;
      let blocks = 0;
      const appends = 4096 * 8;
      for (let i = 0; i < appends; i++) {
        const first = Math.floor(positionBytes / blockBytes);
        const last = Math.floor((positionBytes + recordBytes - 1) / blockBytes);
        blocks += last - first + 1;
        positionBytes += recordBytes;
      }
      expect(blocksPerAppend(recordBytes, blockBytes)).toBeCloseTo(blocks / appends, 3);
    }
  });

  it('refuses sizes that are not positive integers', () => {
    expect(() => blocksPerAppend(0, 4096)).toThrow();
    expect(() => blocksPerAppend(1040, 0)).toThrow();
    expect(() => blocksPerAppend(1.5, 4096)).toThrow();
  });

  it('matches appending with page alignment: one block per append, fewer records per block', () => {
    expect(alignedFloorBytesPerAppend(1040, 4096)).toBe(4096);
    expect(alignedSegmentBytesPerRecord(1040, 4096)).toBeCloseTo(4096 / 3, 6);
    for (const recordBytes of [53, 1040, 2049, 4096, 5000]) {
      const blockBytes = 4096;
      let positionBytes = 0;
      let blocks = 0;
      const appends = 3 * blockBytes;
      for (let i = 0; i < appends; i++) {
        positionBytes = alignedWriteStart(positionBytes, recordBytes, blockBytes);
        const first = Math.floor(positionBytes / blockBytes);
        blocks += Math.floor((positionBytes + recordBytes - 1) / blockBytes) - first + 1;
        positionBytes += recordBytes;
      }
      const floor = alignedFloorBytesPerAppend(recordBytes, blockBytes);
      expect(floor).toBeCloseTo((blocks / appends) * blockBytes, 0);
      expect(alignedSegmentBytesPerRecord(recordBytes, blockBytes)).toBeCloseTo(
        positionBytes / appends,
        0,
      );
    }
  });
});
