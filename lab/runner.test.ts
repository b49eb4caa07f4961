import { describe, expect, it } from 'vitest';
import { Measurement } from './measurement.js';
import { SeededRandom } from '../storage/sim/prng.js';
import {
  ClosedLoopTurns,
  interleave,
  measureAsync,
  measureOpenLoopAsync,
  measureOpenLoopSync,
  measureSync,
  oneAtATime,
  runAsync,
  roundInTurns,
  runSync,
  takeTurns,
  turnOrders,
  warmUpAsync,
  warmUpSync,
} from './runner.js';

function busyWaitMs(ms: number): void {
  busyWaitNs(ms * 1e6);
}

function busyWaitNs(ns: number): void {
  const until = process.hrtime.bigint() + BigInt(ns);
  while (process.hrtime.bigint() < until);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('closed loops', () => {
  it('runs the counted operations, folds each result into the checksum, summarises', () => {
    let expected = 0;
    for (let i = 0; i < 30; i++) expected = (expected + i * 3) | 0;
    const summary = runSync('double', (index) => index * 3, {
      measure: { ops: 10 },
      repetitions: 3,
      random: new SeededRandom(1),
      labels: { design: 'A' },
    });
    expect(summary.ops).toBe(30);
    expect(summary.checksum).toBe(expected);
    expect(summary.metrics.map((metric) => metric.name)).toEqual([
      'double.ratePerSec',
      'double.latencyNs',
    ]);
    expect(summary.ratePerSec).toMatchObject({ unit: 'ops/s', kind: 'timing', count: 3 });
    expect(summary.ratePerSec.samples).toHaveLength(3);
    // Three rounds support no 95% interval of their median; 30 operations do.
    expect(summary.ratePerSec).not.toHaveProperty('ci95');
    expect(summary.latencyNs).toMatchObject({
      unit: 'ns',
      count: 30,
      labels: { design: 'A', mode: 'sync' },
    });
    const latency = summary.latencyNs;
    expect(latency.p50).toBe(latency.median);
    expect(latency.ci95?.[0]).toBeLessThanOrEqual(latency.median);
    expect(latency.ci95?.[1]).toBeGreaterThanOrEqual(latency.median);
    expect(latency.p90 ?? Infinity).toBeLessThanOrEqual(latency.max ?? -1);
    expect(latency).not.toHaveProperty('p99');
  });

  it('gives one median (= p50) over all operations, p99 from 100 and p999 from 1,000', () => {
    const options = { measure: { ops: 400 }, repetitions: 3, random: new SeededRandom(1) };
    const summary = runSync(
      'many',
      (index) => {
        busyWaitNs(index % 7 === 0 ? 2000 : 0);
        return 1;
      },
      options,
    );
    const latency = summary.latencyNs;
    expect(latency.count).toBe(1200);
    expect(latency.p50).toBe(latency.median);
    expect(latency.median).toBeLessThanOrEqual(latency.p99 ?? -1);
    expect(latency.p999).toBeLessThanOrEqual(latency.max ?? -1);
    expect(summary.ratePerSec.p50).toBe(summary.ratePerSec.median);
    expect(summary.ratePerSec).not.toHaveProperty('p90');
  });

  it('gives operations indexes that run on through warm-up and repetitions', () => {
    const seen: number[] = [];
    const measurement = new Measurement('indexes', 'sync');
    const op = (index: number) => seen.push(index);
    const warmUp = warmUpSync(measurement, op, { ops: 2 });
    expect(warmUp.ops).toBe(2);
    expect(warmUp.elapsedNs).toBeGreaterThan(0);
    measureSync(measurement, op, { ops: 3 });
    measureSync(measurement, op, { ops: 3 });
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(measurement.ops).toBe(6);
  });

  it('stops a timed repetition at its deadline', () => {
    const measurement = new Measurement('timed', 'sync');
    const repetition = measureSync(
      measurement,
      () => {
        busyWaitMs(1);
        return 1;
      },
      { seconds: 0.03 },
    );
    expect(repetition.ops).toBeGreaterThan(0);
    expect(repetition.ops).toBeLessThan(1000);
    expect(repetition.elapsedNs).toBeGreaterThanOrEqual(30e6);
  });

  it('carries no interval for a single repetition rather than a zero-width one', () => {
    const options = { measure: { ops: 5 }, repetitions: 1, random: new SeededRandom(1) };
    const summary = runSync('once', () => 1, options);
    expect(summary.ratePerSec.ci95).toBeUndefined();
    expect(summary.latencyNs.ci95).toBeUndefined();
  });

  it('runs async operations one at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const summary = await runAsync(
      'async',
      async () => {
        most = Math.max(most, ++inFlight);
        await sleep(1);
        inFlight--;
        return 1;
      },
      { measure: { ops: 5 }, repetitions: 2, warmup: { ops: 1 }, random: new SeededRandom(1) },
    );
    expect(most).toBe(1);
    expect(summary.ops).toBe(10);
    expect(summary.latencyNs.labels).toEqual({ mode: 'async' });
  });

  it('warms up async operations from several workers, timed and left out of the figures', async () => {
    let inFlight = 0;
    let most = 0;
    const measurement = new Measurement('warm', 'async');
    const warmUp = await warmUpAsync(
      measurement,
      async () => {
        most = Math.max(most, ++inFlight);
        await sleep(1);
        inFlight--;
        return 1;
      },
      { ops: 12 },
      { concurrency: 4 },
    );
    expect(warmUp.ops).toBe(12);
    expect(warmUp.elapsedNs).toBeGreaterThan(0);
    expect(most).toBe(4);
    expect(measurement.ops).toBe(0);
    expect(measurement.nextIndex).toBe(12);
  });

  it('runs async operations from several workers at once when asked', async () => {
    let inFlight = 0;
    let most = 0;
    const indexes: number[] = [];
    const measurement = new Measurement('workers', 'async');
    const repetition = await measureAsync(
      measurement,
      async (index) => {
        indexes.push(index);
        most = Math.max(most, ++inFlight);
        await sleep(2);
        inFlight--;
        return index;
      },
      { ops: 12 },
      { concurrency: 4 },
    );
    expect(most).toBe(4);
    expect(repetition.ops).toBe(12);
    expect([...indexes].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(measurement.checksum).toBe(66);
  });

  it('refuses to mix sync and async operations in one measurement', async () => {
    const measurement = new Measurement('mixed', 'sync');
    await expect(measureAsync(measurement, async () => 1, { ops: 1 })).rejects.toThrow(
      /sync measurement, not async/,
    );
    expect(() => measureSync(new Measurement('m', 'async'), () => 1, { ops: 1 })).toThrow(
      /not sync/,
    );
  });
});

describe('open loops', () => {
  it('counts the wait behind a stalled operation as latency from the intended start', async () => {
    const measurement = new Measurement('stall', 'open-loop-sync');
    // At 1,000/s op i is due at i ms; op 0 stalls 100 ms, so ops 1..49 each start >= 51 ms late.
    await measureOpenLoopSync(
      measurement,
      (index) => {
        if (index === 0) busyWaitMs(100);
        return index;
      },
      { ratePerSec: 1000, budget: { ops: 50 } },
    );
    const summary = measurement.summarize(new SeededRandom(1));
    expect(summary.latencyNs.p50).toBeGreaterThanOrEqual(50e6);
    expect(summary.serviceNs?.p50 ?? Infinity).toBeLessThan(summary.latencyNs.p50 ?? 0);
    expect(summary.metrics.map((metric) => metric.name)).toEqual([
      'stall.ratePerSec',
      'stall.latencyNs',
      'stall.serviceNs',
    ]);
  });

  it('starts async operations on schedule while earlier ones run, up to a limit', async () => {
    let inFlight = 0;
    let most = 0;
    const op = async () => {
      most = Math.max(most, ++inFlight);
      await sleep(30);
      inFlight--;
      return 1;
    };
    const measurement = new Measurement('overlap', 'open-loop-async');
    const repetition = await measureOpenLoopAsync(measurement, op, {
      ratePerSec: 500,
      budget: { ops: 16 },
      maxInFlight: 8,
    });
    expect(most).toBe(8);
    expect(repetition.ops).toBe(16);
    most = 0;
    await measureOpenLoopAsync(measurement, op, {
      ratePerSec: 500,
      budget: { ops: 4 },
      maxInFlight: 1,
    });
    expect(most).toBe(1);
  });

  it('stops the schedule at the first failure and reports it', async () => {
    const measurement = new Measurement('fails', 'open-loop-async');
    const started: number[] = [];
    const failing = measureOpenLoopAsync(
      measurement,
      async (index) => {
        started.push(index);
        await sleep(1);
        if (index === 2) throw new Error('disk gone');
        return index;
      },
      { ratePerSec: 200, budget: { seconds: 1 }, maxInFlight: 1 },
    );
    await expect(failing).rejects.toThrow('disk gone');
    expect(started).toEqual([0, 1, 2]);
  });
});

describe('interleave', () => {
  it("runs designs in alternating rounds, each starting one design later, and returns each one's results in round order", async () => {
    const order: string[] = [];
    const results = await interleave(3, [
      {
        name: 'A',
        round: (round) => {
          order.push(`A${round}`);
          return round;
        },
      },
      {
        name: 'B',
        round: async (round) => {
          order.push(`B${round}`);
          return round * 10;
        },
      },
    ]);
    expect(order).toEqual(['A0', 'B0', 'B1', 'A1', 'A2', 'B2']);
    expect(results.get('A')).toEqual([0, 1, 2]);
    expect(results.get('B')).toEqual([0, 10, 20]);
  });

  it('rotates three designs so that each follows each other one', async () => {
    const order: string[] = [];
    const design = (name: string) => ({ name, round: () => void order.push(name) });
    await interleave(3, [design('A'), design('B'), design('C')]);
    expect(order.join('')).toBe('ABCBCACAB');
  });

  it('refuses a single design and duplicate names', async () => {
    await expect(interleave(1, [{ name: 'A', round: () => 1 }])).rejects.toThrow(/two designs/);
    await expect(
      interleave(1, [
        { name: 'A', round: () => 1 },
        { name: 'A', round: () => 2 },
      ]),
    ).rejects.toThrow(/two designs are named A/);
  });
});

describe('takeTurns', () => {
  const recording = (order: string[], lengths: number[], name: string, operations: number) => ({
    name,
    turn: async (seconds: number) => {
      order.push(name);
      lengths.push(seconds);
      // A timer may fire up to a millisecond early by the clock takeTurns reads (libuv times it
      // from the loop's cached now): sleep until that clock says 2 ms went by.
      const until = process.hrtime.bigint() + 2_000_000n;
      while (process.hrtime.bigint() < until) await sleep(1);
      return operations;
    },
  });

  it('alternates turns within a round, each turn starting one design later, and sums each design', async () => {
    const order: string[] = [];
    const lengths: number[] = [];
    const totals = await takeTurns(
      [recording(order, lengths, 'A', 5), recording(order, lengths, 'B', 7)],
      0.3,
      0.1,
      1,
    );
    expect(order.join('')).toBe('BAABBA');
    expect(lengths).toEqual(Array(6).fill(0.1));
    expect(totals.get('A')!.operations).toBe(15);
    expect(totals.get('B')!.operations).toBe(21);
    // Three turns of at least the 2 ms each sleeps, measured by takeTurns itself.
    expect(totals.get('A')!.seconds).toBeGreaterThanOrEqual(0.006);
    expect(totals.get('A')!.seconds).toBeLessThan(1);
  });

  it('orders the passes so that every design follows every other one equally often', () => {
    for (let count = 1; count <= 7; count++) {
      const orders = turnOrders(count);
      expect(orders).toHaveLength(count % 2 === 0 ? count : 2 * count);
      const follows = new Map<string, number>();
      for (const order of orders) {
        expect([...order].sort((a, b) => a - b)).toEqual([...Array(count).keys()]);
        for (let k = 1; k < count; k++) {
          const pair = `${order[k - 1]}>${order[k]}`;
          follows.set(pair, (follows.get(pair) ?? 0) + 1);
        }
      }
      // Every ordered pair of two designs, as often as any other.
      expect(follows.size).toBe(count * (count - 1));
      expect(new Set(follows.values()).size).toBeLessThanOrEqual(1);
    }
    expect(() => turnOrders(0)).toThrow(/count of designs/);
  });

  it('gives four designs each predecessor equally often over their passes', async () => {
    const order: string[] = [];
    const lengths: number[] = [];
    await takeTurns(
      ['A', 'B', 'C', 'D'].map((name) => recording(order, lengths, name, 1)),
      0.04,
      0.01,
    );
    const passes = Array.from({ length: 4 }, (_, pass) => order.slice(pass * 4, pass * 4 + 4));
    expect(passes.map((pass) => pass.join(''))).toEqual(['ABDC', 'BCAD', 'CDBA', 'DACB']);
    const before = (name: string) =>
      passes.flatMap((pass) => pass.filter((_, k) => pass[k + 1] === name)).sort();
    for (const name of ['A', 'B', 'C', 'D'])
      expect(before(name)).toEqual(['A', 'B', 'C', 'D'].filter((other) => other !== name));
  });

  it('gives a round shorter than a turn one turn of its own length', async () => {
    const order: string[] = [];
    const lengths: number[] = [];
    await takeTurns(
      [recording(order, lengths, 'A', 1), recording(order, lengths, 'B', 1)],
      0.03,
      0.1,
    );
    expect(order.join('')).toBe('AB');
    expect(lengths).toEqual([0.03, 0.03]);
  });

  it('refuses a single design, duplicate names and turns that take no time', async () => {
    const design = (name: string) => ({ name, turn: async () => 1 });
    await expect(takeTurns([design('A')], 1, 0.1)).rejects.toThrow(/two designs or more/);
    await expect(takeTurns([design('A'), design('A')], 1, 0.1)).rejects.toThrow(
      /names of their own/,
    );
    await expect(takeTurns([design('A'), design('B')], 1, 0)).rejects.toThrow(/take time/);
  });

  it('runs one operation at a time for a turn and counts them', async () => {
    let running = 0;
    let most = 0;
    const turn = oneAtATime(async () => {
      most = Math.max(most, ++running);
      await sleep(1);
      running--;
    });
    const operations = await turn(0.02);
    expect(most).toBe(1);
    expect(operations).toBeGreaterThan(0);
    expect(operations).toBeLessThanOrEqual(20);
  });

  it("puts every turn of a round into one repetition: its operations over its turns' time", async () => {
    const measurement = new Measurement('slow', 'async');
    let running = 0;
    let most = 0;
    const slow = new ClosedLoopTurns(
      'slow',
      measurement,
      async () => {
        most = Math.max(most, ++running);
        await sleep(2);
        running--;
        return 1;
      },
      { concurrency: 3 },
    );
    const fast = new ClosedLoopTurns('fast', new Measurement('fast', 'async'), async () => 1);
    for (const round of [0, 1]) {
      slow.beginRound();
      fast.beginRound();
      const totals = await takeTurns([slow, fast], 0.06, 0.02, round);
      const repetition = slow.endRound();
      fast.endRound();
      expect(repetition.ops).toBe(totals.get('slow')!.operations);
      // Three turns of 20 ms, each draining its last sleeps: the turns' time, not the round's.
      expect(repetition.elapsedNs / 1e6).toBeGreaterThanOrEqual(60);
      expect(repetition.elapsedNs / 1e9).toBeLessThanOrEqual(totals.get('slow')!.seconds);
      expect(repetition.ratePerSec).toBeCloseTo(repetition.ops / (repetition.elapsedNs / 1e9), 6);
    }
    expect(most).toBe(3);
    expect(measurement.repetitions).toHaveLength(2);
    expect(measurement.checksum).toBe(
      measurement.repetitions.reduce((sum, rep) => sum + rep.ops, 0),
    );
  });

  it('refuses a turn outside a round, a second open round, and closing a round never opened', async () => {
    const loop = new ClosedLoopTurns('A', new Measurement('A', 'async'), async () => 1);
    await expect(loop.turn(0.01)).rejects.toThrow(/outside a round/);
    expect(() => loop.endRound()).toThrow(/no round is open/);
    loop.beginRound();
    expect(() => loop.beginRound()).toThrow(/already open/);
    expect(() => new ClosedLoopTurns('B', new Measurement('B', 'sync'), async () => 1)).toThrow(
      /sync measurement, not async/,
    );
  });
});

describe('roundInTurns', () => {
  const side = (name: string, log: string[]) => ({
    name,
    beginRound: () => log.push(`${name} begins`),
    turn: async (seconds: number) => {
      log.push(`${name} turn ${seconds}`);
      return 1;
    },
    endRound: () => `${name} ends`,
  });

  it("opens the round on every side, takes turns, and returns each side's endRound in order", async () => {
    const log: string[] = [];
    const ended = await roundInTurns([side('A', log), side('B', log)], 0.2, 0);
    expect(ended).toEqual(['A ends', 'B ends']);
    expect(log.slice(0, 2)).toEqual(['A begins', 'B begins']);
    expect(log.slice(2)).toEqual(['A turn 0.1', 'B turn 0.1', 'B turn 0.1', 'A turn 0.1']);
  });

  it('runs a lone side as one turn of the whole round', async () => {
    const log: string[] = [];
    expect(await roundInTurns([side('A', log)], 0.3, 4)).toEqual(['A ends']);
    expect(log).toEqual(['A begins', 'A turn 0.3']);
  });
});
