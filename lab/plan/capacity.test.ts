import { describe, expect, it } from 'vitest';
import {
  COURSE_NORMAL_TRAFFIC,
  COURSE_SEGMENT_TABLE_BYTES,
  secondsToFill,
  trafficBytesPerSec,
} from './capacity.js';

describe('capacity arithmetic', () => {
  it("prices the course's normal traffic at 5,120 bytes a second", () => {
    expect(trafficBytesPerSec(COURSE_NORMAL_TRAFFIC)).toBe(5_120);
  });

  it("reproduces the course's table of how long one segment lasts", () => {
    const seconds = COURSE_SEGMENT_TABLE_BYTES.map((bytes) =>
      Math.floor(secondsToFill(bytes, COURSE_NORMAL_TRAFFIC)),
    );
    expect(seconds).toEqual([819, 13_107, 20_480, 209_715]);
    const hours = COURSE_SEGMENT_TABLE_BYTES.map(
      (bytes) => secondsToFill(bytes, COURSE_NORMAL_TRAFFIC) / 3_600,
    );
    expect(hours[1]).toBeCloseTo(3.6, 1);
    expect(hours[2]).toBeCloseTo(5.7, 1);
    expect(hours[3]).toBeCloseTo(58, 0);
  });

  it('says one GiB of page cache holds about 2.4 days of normal traffic', () => {
    const days = secondsToFill(1024 ** 3, COURSE_NORMAL_TRAFFIC) / 86_400;
    expect(days).toBeCloseTo(2.4, 1);
  });

  it('scales inversely with the message rate', () => {
    const slow = secondsToFill(1_000_000, { msgsPerSec: 10, messageBytes: 100 });
    const fast = secondsToFill(1_000_000, { msgsPerSec: 20, messageBytes: 100 });
    expect(slow).toBe(1_000);
    expect(fast).toBe(500);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => secondsToFill(1, { msgsPerSec: 0, messageBytes: 1 })).toThrow(/msgsPerSec/);
    expect(() => secondsToFill(-1, COURSE_NORMAL_TRAFFIC)).toThrow(/bytes/);
  });
});
