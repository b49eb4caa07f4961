import { describe, expect, it } from 'vitest';
import type { FioOutcome } from '../../lab/probes/fio.js';
import { SeededRandom } from '../../storage/sim/prng.js';
import type { ChildConfig } from './queue-depth-protocol.js';
import { FioRuns, fioJobEnv, pairedRounds } from './queue-depth-rounds.js';

/** A fio run of `ios` writes in 100 ms, half of them at 100 µs and half at 300 µs. */
function outcome(ios: number): FioOutcome {
  return {
    ok: true,
    write: {
      iops: ios * 10,
      bytesPerSec: ios * 40_960,
      ios,
      runtimeMs: 100,
      latencyNsBins: [
        [100_000, ios / 2],
        [300_000, ios / 2],
      ],
    },
  };
}

const CONFIG = {
  depth: 16,
  seconds: 0.5,
  randomFile: '/d/random-write.bin',
  appendFile: '/d/append.bin',
  randomFileBytes: 16 * 1024 * 1024,
} as ChildConfig;

describe('pairedRounds', () => {
  it('pairs ours with the reference in every round, swapping which goes first each round', async () => {
    const calls: string[] = [];
    const log = (what: string) => async (round: number) => {
      calls.push(`${round}:${what}`);
    };
    await pairedRounds(4, [
      { name: 'random-write', ours: log('ours-rw'), reference: log('fio-rw') },
      { name: 'slot-send', ours: log('ours-ss'), reference: null },
    ]);
    // Odd rounds start with the other design (interleave rotates which goes first).
    expect(calls).toEqual([
      '0:ours-rw',
      '0:fio-rw',
      '0:ours-ss',
      '1:ours-ss',
      '1:fio-rw',
      '1:ours-rw',
      '2:ours-rw',
      '2:fio-rw',
      '2:ours-ss',
      '3:ours-ss',
      '3:fio-rw',
      '3:ours-rw',
    ]);
  });
});

describe('FioRuns', () => {
  it("keeps one repetition per round, and every I/O's latency from fio's bins", async () => {
    const ios = [400, 200, 600];
    const runs = new FioRuns('random-write', 'O_DIRECT', 'job.fio', { DEPTH: '16' }, 1000, () =>
      outcome(ios.shift() ?? 0),
    );
    for (let round = 0; round < 3; round++) await runs.round(round);
    const report = runs.report(new SeededRandom(1));
    if (!report.ok) throw new Error(report.reason);
    expect(report.ratePerSec).toMatchObject({
      count: 3,
      samples: [4000, 2000, 6000],
      median: 4000,
      kind: 'timing',
      direction: 'higher',
    });
    expect(report.ratePerSec.ci95).toBeUndefined();
    // 1,200 I/Os: median and p99 over all of them (p999 needs 1,000 and is there too).
    expect(report.latencyNs.count).toBe(1200);
    expect(report.latencyNs.median).toBeCloseTo(100_000, -3);
    expect(report.latencyNs.p99).toBeCloseTo(300_000, -3);
    expect(report.latencyNs.p999).toBeDefined();
    expect(report.latencyNs.samples).toHaveLength(3);
  });

  it('leaves out tail percentiles that too few I/Os support', async () => {
    const runs = new FioRuns('append', 'O_DIRECT', 'job.fio', {}, 1000, () => outcome(40));
    await runs.round(0);
    await runs.round(1);
    const report = runs.report(new SeededRandom(1));
    if (!report.ok) throw new Error(report.reason);
    expect(report.latencyNs.count).toBe(80);
    expect(report.latencyNs.p90).toBeDefined();
    expect(report.latencyNs.p99).toBeUndefined();
  });

  it('stops running fio after a failure and says in which round it failed', async () => {
    let calls = 0;
    const runs = new FioRuns('append', 'O_DIRECT', 'job.fio', {}, 1000, () => {
      calls++;
      return calls === 2 ? { ok: false, reason: 'fio exited with 1: bad' } : outcome(10);
    });
    for (let round = 0; round < 4; round++) await runs.round(round);
    expect(calls).toBe(2);
    expect(runs.report(new SeededRandom(1))).toEqual({
      ok: false,
      reason: 'round 2: fio exited with 1: bad',
    });
  });
});

describe('fioJobEnv', () => {
  it("gives fio our file, depth and round length, and ours' way of reaching the device", () => {
    expect(fioJobEnv('random-write', CONFIG, 'O_DIRECT')).toEqual({
      FILE: '/d/random-write.bin',
      SIZE: String(16 * 1024 * 1024),
      DEPTH: '16',
      RUNTIME: '500ms',
      DIRECT: '1',
      SYNC: '0',
    });
    expect(fioJobEnv('append', CONFIG, 'O_DSYNC')).toMatchObject({
      FILE: '/d/append.bin',
      DIRECT: '0',
      SYNC: 'dsync',
    });
  });
});
