import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { InflightSampler, readInflightWrites } from './inflight-sampler.js';

const tempDir = tempDirs('inflight');

function sysWith(disks: Record<string, string>): string {
  const sysRoot = tempDir();
  for (const [disk, inflight] of Object.entries(disks)) {
    fs.mkdirSync(join(sysRoot, 'block', disk), { recursive: true });
    fs.writeFileSync(join(sysRoot, 'block', disk, 'inflight'), inflight);
  }
  return sysRoot;
}

describe('InflightSampler', () => {
  it("reads the writes column of a disk's inflight file", () => {
    const sysRoot = sysWith({ vdz: '       3       17\n' });
    expect(readInflightWrites('vdz', sysRoot)).toBe(17);
    expect(readInflightWrites('missing', sysRoot)).toBeNull();
  });

  it('sums the disks of each sample and summarises the samples', () => {
    const sysRoot = sysWith({ vdy: '0 2\n', vdz: '0 4\n' });
    const sampler = new InflightSampler(['vdy', 'vdz'], sysRoot);
    sampler.start();
    expect(sampler.sample()).toBe(true);
    fs.writeFileSync(join(sysRoot, 'block', 'vdz', 'inflight'), '0 0\n');
    expect(sampler.sample()).toBe(true);
    expect(sampler.sample()).toBe(true);
    const summary = sampler.stop();
    // No turn of the event loop passed, so the timer took no sample of its own.
    expect(summary).toMatchObject({ samples: 3, median: 2, max: 6 });
    expect(summary?.mean).toBeCloseTo(10 / 3);
  });

  it('gives no summary when the counters cannot be read', () => {
    const sampler = new InflightSampler(['missing'], tempDir());
    sampler.start();
    expect(sampler.sample()).toBe(false);
    expect(sampler.stop()).toBeNull();
  });
});
