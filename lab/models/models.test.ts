import { describe, expect, it } from 'vitest';
import { roundSignificant } from '../format.js';
import { EXOS_X20, SAMSUNG_990_PRO, diskPreset, hddRandomWriteMs } from './models.js';
import {
  hddCourseFigures,
  hddCourseLines,
  ssdCourseFigures,
  ssdCourseLines,
} from './course-arithmetic.js';

describe("the course's hard-disk arithmetic, computed from the Exos X20 model", () => {
  const f = hddCourseFigures(EXOS_X20);

  it('prices a turn, the average wait and a random write as the course does', () => {
    expect(f.rotationMs.toFixed(2)).toBe('8.33');
    expect(f.halfTurnMs.toFixed(2)).toBe('4.17');
    expect(EXOS_X20.datasheetAverageLatencyMs).toBe(4.16);
    expect(Math.round(f.randomWriteMs)).toBe(10);
    expect(Math.round(f.randomWritesPerSec)).toBe(100);
  });

  it('gives design A 50 messages a second and design B about 278,000, a gap of about 5,600', () => {
    expect(Math.round(f.designAMsgsPerSec)).toBe(50);
    expect(roundSignificant(f.designBMsgsPerSec, 3)).toBe(278_000);
    expect(f.designBMsgsPerSec).toBeCloseTo(285_000_000 / 1024, 6);
    expect(roundSignificant(f.gap, 2)).toBe(5_600);
  });

  it('lifts design A to 275 messages a second at QD16, still ~1,000 times below B', () => {
    expect(f.queuedDesignAMsgsPerSec).toBe(275);
    expect(roundSignificant(f.queuedGap, 1)).toBe(1_000);
  });

  it('plays the sale: 80 and 140 writes/s, 60 deletes allowed, a 180 s drain, not 60 s', () => {
    expect(f.sale.peakWritesPerSec).toBe(80);
    expect(Math.round(f.sale.peakShareOfDisk * 100)).toBe(80);
    expect(f.sale.drainWritesPerSec).toBe(140);
    expect(f.sale.drainWritesPerSec).toBeGreaterThan(f.randomWritesPerSec);
    expect(Math.round(f.sale.deletesAllowedPerSec)).toBe(60);
    expect(Math.round(f.sale.drainRatePerSec)).toBe(20);
    expect(Math.round(f.sale.timeToEmptySeconds)).toBe(180);
    expect(f.sale.plannedSeconds).toBe(60);
  });

  it('prints each step with its computed result', () => {
    const text = hddCourseLines(EXOS_X20).join('\n');
    expect(text).toMatch(/one turn .*= 8\.33 ms/);
    expect(text).toMatch(/average wait .*= 4\.17 ms .*datasheet: 4\.16 ms/);
    expect(text).toMatch(/design A .*= 50 messages a second/);
    expect(text).toMatch(/design B .*= 278,320 messages a second/);
    expect(text).toMatch(/time to empty .*= 180 s, not the 60 s planned/);
  });

  it('follows its parameters rather than fixed numbers', () => {
    const slower = { ...EXOS_X20, rpm: 5400 };
    expect(hddCourseFigures(slower).rotationMs).toBeCloseTo(60_000 / 5400, 10);
    expect(hddRandomWriteMs(slower, 0)).toBeGreaterThan(hddRandomWriteMs(EXOS_X20, 0));
  });
});

describe("the course's SSD arithmetic, computed from the 990 PRO model", () => {
  const f = ssdCourseFigures(SAMSUNG_990_PRO);

  it('gives 328 MB/s at QD1, a 21 times gap to 6,900 MB/s and about 6,350 MB/s at QD32', () => {
    expect(Math.round(f.qd1BytesPerSec / 1e6)).toBe(328);
    expect(Math.round(f.gap)).toBe(21);
    expect(roundSignificant(f.qd32BytesPerSec / 1e6, 3)).toBe(6_350);
  });

  it('gives design A 40,000 messages/s at QD1, writing 8 KiB per message against 1 KiB', () => {
    expect(f.designAMsgsPerSecQd1).toBe(40_000);
    expect(f.bytesPerMessageA).toBe(8 * 1024);
    expect(f.bytesPerMessageB).toBe(1024);
    expect(f.bytesRatio).toBe(8);
    expect(ssdCourseLines(SAMSUNG_990_PRO).join('\n')).toMatch(/8 KiB per message/);
  });
});

describe('presets', () => {
  it('are found by id and unknown ids are not', () => {
    expect(diskPreset('exos-x20')).toBe(EXOS_X20);
    expect(diskPreset('990-pro')).toBe(SAMSUNG_990_PRO);
    expect(diskPreset('floppy')).toBeUndefined();
  });
});
