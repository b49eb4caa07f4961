import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { STEAL_NOTE_SHARE } from '../results.js';
import { cpuStealBetween, cpuStealNote, parseCpuTimes, readCpuTimes } from './cpu-steal.js';

const tempDir = tempDirs('cpu-steal');

// Read off this lab's VM; guest and guest_nice (the last two) are already in user and nice.
const STAT = [
  'cpu  306395 76 199381 713831 52826 0 9195 65155 7 3',
  'cpu0 153000 40 99000 356000 26000 0 4500 32000 0 0',
  'intr 123',
].join('\n');

describe('CPU steal from /proc/stat', () => {
  it('reads the aggregate line: steal, and every column up to it as the total', () => {
    expect(parseCpuTimes(STAT)).toEqual({
      stealTicks: 65155,
      totalTicks: 306395 + 76 + 199381 + 713831 + 52826 + 0 + 9195 + 65155,
    });
  });

  it('refuses a line without a steal column, a non-number or no cpu line at all', () => {
    expect(parseCpuTimes('cpu  1 2 3 4 5 6 7')).toBeNull();
    expect(parseCpuTimes('cpu  1 2 3 4 5 6 7 x')).toBeNull();
    expect(parseCpuTimes('cpu  1 2 3 4 5 6 7 -8')).toBeNull();
    expect(parseCpuTimes('cpu0 1 2 3 4 5 6 7 8\nintr 1')).toBeNull();
  });

  it('reads a file, and null where there is none (not Linux)', () => {
    const file = join(tempDir(), 'stat');
    fs.writeFileSync(file, STAT);
    expect(readCpuTimes(file)?.stealTicks).toBe(65155);
    expect(readCpuTimes(join(tempDir(), 'missing'))).toBeNull();
  });

  it('gives the share between two readings, null when one is missing or no time passed', () => {
    const before = { stealTicks: 100, totalTicks: 1000 };
    expect(cpuStealBetween(before, { stealTicks: 122, totalTicks: 1100 })).toEqual({
      share: 0.22,
      stealTicks: 22,
      totalTicks: 100,
    });
    expect(cpuStealBetween(null, before)).toBeNull();
    expect(cpuStealBetween(before, null)).toBeNull();
    expect(cpuStealBetween(before, before)).toBeNull();
  });

  it('notes steal from STEAL_NOTE_SHARE on, with the share, and not below it', () => {
    const at = (share: number) => ({ share, stealTicks: share * 1000, totalTicks: 1000 });
    expect(cpuStealNote(at(0.222))).toMatch(/^The hypervisor gave 22\.2% of this machine's CPU/);
    expect(cpuStealNote(at(STEAL_NOTE_SHARE))).not.toBeNull();
    expect(cpuStealNote(at(STEAL_NOTE_SHARE - 0.001))).toBeNull();
    expect(cpuStealNote(null)).toBeNull();
  });
});
