import { describe, expect, it } from 'vitest';
import { Log } from '../../storage/index.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { recycleToSteadyState } from './steady-state.js';

const newDir = tempDirs('steady-state');
const BODY = Buffer.alloc(1000, 0x73);

describe('recycleToSteadyState', () => {
  it('leaves a log with retention appending into a recycled or laid-out segment, the filled ones dropped', async () => {
    const log = Log.open(newDir(), { durability: 'always', segmentBytes: 64 * 1024 });
    try {
      await recycleToSteadyState(log, BODY);
      // The second roll took retention's file, or a spare laid out before the removal (the first
      // roll may have taken a laid-out one too).
      expect(log.segmentsReused + log.segmentsLaidOut).toBeGreaterThanOrEqual(1);
      expect(log.segmentsReused).toBeLessThanOrEqual(1);
      const [active, ...rest] = log.segments();
      expect(rest).toEqual([]);
      expect(log.startOffset).toBe(active!.baseOffset);
      // Both filled segments held records, and the next append goes into the recycled file.
      expect(active!.baseOffset).toBeGreaterThan(2 * 60);
      const offset = await log.append(BODY);
      expect(log.read(offset).body).toEqual(BODY);
    } finally {
      await log.close();
    }
  });

  it('refuses a log that keeps no spare file (none preallocates nothing to reuse)', async () => {
    const log = Log.open(newDir(), { durability: 'none', segmentBytes: 64 * 1024 });
    try {
      await expect(recycleToSteadyState(log, BODY)).rejects.toThrow(/recycled or laid-out segment/);
    } finally {
      await log.close();
    }
  });
});
