import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../storage/sim/prng.js';
import {
  LateStarts,
  OFFERED_PCTS,
  OpenLoopSeries,
  offeredRates,
  openLoopRound,
  startedLate,
} from './open-loop.js';
import { Measurement } from '../../lab/measurement.js';
import { declareMetrics } from '../../lab/metric-catalog.js';
import { openLoopDeclarations } from '../metrics/open-loop.js';

/** Holds the event loop for `ns`, as a synced write under `always` does. */
function busyFor(ns: number): void {
  const end = process.hrtime.bigint() + BigInt(ns);
  while (process.hrtime.bigint() < end);
}

describe('offered rates', () => {
  it('are the shares of the closed-loop rate, in whole sends per second', () => {
    expect(offeredRates(1_000)).toEqual([
      { offeredPct: 25, offeredPerSec: 250 },
      { offeredPct: 50, offeredPerSec: 500 },
      { offeredPct: 75, offeredPerSec: 750 },
      { offeredPct: 90, offeredPerSec: 900 },
    ]);
    expect(offeredRates(1_234.5, [90])).toEqual([{ offeredPct: 90, offeredPerSec: 1_111 }]);
    expect(OFFERED_PCTS).toEqual([25, 50, 75, 90]);
  });

  it('offer at least one send a second however slow the closed loop was', () => {
    expect(offeredRates(2).map((rate) => rate.offeredPerSec)).toEqual([1, 1, 2, 2]);
  });

  it('refuse a rate that is not positive and a share above the whole', () => {
    expect(() => offeredRates(0)).toThrow(/positive/);
    expect(() => offeredRates(Number.NaN)).toThrow(/finite/);
    expect(() => offeredRates(100, [110])).toThrow(/at most 100%/);
  });
});

describe('late starts', () => {
  it('count a send late from a whole interval behind its intended start', () => {
    expect(startedLate(999_999, 1_000_000)).toBe(false);
    expect(startedLate(1_000_000, 1_000_000)).toBe(true);
    expect(startedLate(-5, 1_000_000)).toBe(false);
  });

  it('rebuild the schedule from the first start and count the sends behind it', () => {
    // 1,000 sends a second: one due every millisecond from the first, whose index is 5.
    const late = new LateStarts(1_000, 5);
    late.started(5, 10_000_000_000n);
    late.started(6, 10_001_500_000n); // due at +1 ms, 0.5 ms behind: jitter
    late.started(7, 10_004_000_000n); // due at +2 ms, 2 ms behind
    late.started(8, 10_004_100_000n); // due at +3 ms, 1.1 ms behind
    late.started(9, 10_004_200_000n); // due at +4 ms, 0.2 ms behind: caught up
    expect(late.late).toBe(2);
    expect(late.starts).toBe(5);
  });

  it('refuse a first start that is not the first scheduled send', () => {
    const late = new LateStarts(1_000, 5);
    expect(() => late.started(6, 1n)).toThrow(/first scheduled/);
    expect(() => late.started(4, 1n)).toThrow(/before the repetition's first/);
  });

  it('find the sends queued behind a stall that a closed loop would not time', async () => {
    const measurement = new Measurement('stall', 'open-loop-async');
    // 1,000 a second for 60 ms, one in flight; the first send holds the loop for 30 ms.
    const round = await openLoopRound(
      measurement,
      async (index) => {
        if (index === 0) busyFor(30_000_000);
        return index;
      },
      { ratePerSec: 1_000, seconds: 0.06, maxInFlight: 1 },
    );
    expect(round.repetition.ops).toBe(60);
    // Sends 1-29 were due during the stall; most start more than a millisecond late.
    expect(round.lateSends).toBeGreaterThanOrEqual(20);
    expect(round.lateSends).toBeLessThanOrEqual(60);
    expect(measurement.latencyNs.getValueAtPercentile(50)).toBeGreaterThan(
      measurement.serviceNs.getValueAtPercentile(50),
    );
  });
});

describe('an open-loop series', () => {
  it('names its figures by offered share and labels them with the rate and the loop', async () => {
    const specs = declareMetrics('exp', openLoopDeclarations(['design']));
    const series = new OpenLoopSeries(
      specs,
      'exp.A.always',
      { design: 'A' },
      { offeredPct: 50, offeredPerSec: 400 },
    );
    const first = await series.round(async (index) => index, 0.02, 2);
    const second = await series.round(async (index) => index, 0.02, 2);
    const metrics = series.metrics(new SeededRandom(1), 'the 800 sends/s of the closed loop');
    const labels = { design: 'A', offeredPct: 50, offeredPerSec: 400, mode: 'open-loop-async' };
    expect(
      metrics.map((metric) => [metric.name, metric.unit, metric.class, metric.direction]),
    ).toEqual([
      ['exp.A.always.offered50.openLoopLatencyNs', 'ns', 'timing', 'lower'],
      ['exp.A.always.offered50.openLoopMsgsPerSec', 'msgs/s', 'timing', 'higher'],
      ['exp.A.always.offered50.openLoopLateSends', 'msgs', 'measurement', 'lower'],
      ['exp.A.always.offered50.openLoopServiceNs', 'ns', 'timing', 'lower'],
    ]);
    for (const metric of metrics) expect(metric.labels).toEqual(labels);
    const [latency, rate, late] = metrics;
    expect(latency?.count).toBe(16);
    expect(latency?.p99).toBeUndefined();
    expect(rate?.samples).toHaveLength(2);
    expect(late?.median).toBe(first.lateSends + second.lateSends);
    expect(late?.description).toMatch(/of 16 scheduled in 2 rounds/);
    expect(latency?.description).toMatch(/^400 sends\/s offered \(50% of the 800 sends\/s/);
  });
});
