import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runExperiment } from '../lab/experiment.js';
import type { Results } from '../lab/results.js';
import {
  expectContractCharts,
  expectWellFormed,
  expectHonestStatistics,
  metricNamed,
  metricsOf,
} from '../test/fixtures/experiment-shape.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { experiment } from './queue-depth.js';

const tempDir = tempDirs('queue-depth');

const tiny = {
  ...experiment,
  params: {
    ...experiment.params,
    depths: { quick: '1,2', full: '1,2' },
    rounds: { quick: 1, full: 1 },
    randomFileMiB: { quick: 1, full: 1 },
    fioCheck: { quick: 0, full: 0 },
  },
};

describe('the queue-depth experiment', () => {
  let results: Results;

  it('runs each depth in a child process and returns a valid document', async () => {
    results = await runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.3 });
    expectWellFormed(results);
    expect(results.headline).toMatch(/From depth 1 to 2, random 4 KiB writes went from/);
    expect(results.notes.join('\n')).toMatch(/UV_THREADPOOL_SIZE = depth \+ 4/);
  });

  it('labels IOPS and latency by method, engine and numeric depth, as charts need', () => {
    for (const quantity of ['iops', 'latencyNs']) {
      const metrics = metricsOf(results, quantity);
      for (const metric of metrics) {
        expect(metric.labels).toMatchObject({
          method: expect.stringMatching(/^(random-write|append|slot-send)$/),
          engine: expect.stringMatching(/^(libuv|io_uring)$/),
          depth: expect.any(Number),
          ioMode: expect.stringMatching(/^(O_DIRECT|O_DSYNC|write\+fdatasync)$/),
        });
      }
      const libuv = metrics.filter((metric) => metric.labels?.engine === 'libuv');
      expect(libuv).toHaveLength(6);
    }
    expectHonestStatistics(metricNamed(results, 'queue-depth.random-write.libuv.2.latencyNs'));
    expect(metricNamed(results, 'queue-depth.random-write.libuv.1.iops').unit).toBe('ops/s');
    // A tiny run may complete fewer than 100 writes at a depth: no p99 there, so no p99 chart.
    const tailless = metricsOf(results, 'latencyNs').some((metric) => metric.p99 === undefined);
    expectContractCharts(results, tailless ? ['p99-latency'] : []);
  });

  it('derives MB/s from the IOPS of the same repetitions', () => {
    for (const metric of metricsOf(results, 'mbPerSec')) {
      const iops = metricNamed(results, metric.name.replace(/mbPerSec$/, 'iops'));
      metric.samples?.forEach((value, i) =>
        expect(value).toBeCloseTo(((iops.samples?.[i] ?? 0) * 4096) / 1e6),
      );
    }
    expect(
      metricsOf(results, 'mbPerSec').some((metric) => metric.labels?.method === 'slot-send'),
    ).toBe(false);
  });

  it('reports the depth the device reached, or io_uring only where it took effect', () => {
    if (results.environment.device.name !== null) {
      for (const metric of metricsOf(results, 'reachedDepth')) {
        expect(metric.unit).toBe('count');
        expect(metric.max).toBeGreaterThanOrEqual(metric.median);
      }
      expect(metricsOf(results, 'reachedDepth').length).toBeGreaterThan(0);
    }
    const uring = metricsOf(results, 'iops').filter(
      (metric) => metric.labels?.engine === 'io_uring',
    );
    const notes = results.notes.join('\n');
    if (uring.length > 0) expect(notes).toMatch(/io_uring took effect/);
    else expect(notes).toMatch(/io_uring/);
  });
});

/**
 * A stand-in for fio on PATH: it logs each run's settings and the append file's size when it
 * starts, and reports 100 × n writes in 100 ms for its n-th run, half at 100 µs and half at
 * 300 µs, so every round's fio rate differs.
 */
const FAKE_FIO = `#!/bin/sh
if [ "$1" = "--version" ]; then echo fio-fake; exit 0; fi
if [ -n "$FAKE_FIO_FAIL" ]; then
  echo "$FILE" >> "$FAKE_FIO_LOG"; echo "fio: fake failure" >&2; exit 1
fi
echo "$(basename "$FILE") $DEPTH $RUNTIME $DIRECT $SYNC $(stat -c %s "$FILE")" >> "$FAKE_FIO_LOG"
ios=$(( $(wc -l < "$FAKE_FIO_LOG") * 100 ))
printf '{"jobs":[{"write":{"iops":%d,"bw_bytes":%d,"total_ios":%d,"runtime":100,' \\
  $((ios * 10)) $((ios * 40960)) $ios
printf '"lat_ns":{"bins":{"100000":%d,"300000":%d}}}}]}\\n' $((ios / 2)) $((ios / 2))
`;

describe('the queue-depth experiment with fio installed', () => {
  const saved = {
    PATH: process.env.PATH,
    FAKE_FIO_LOG: process.env.FAKE_FIO_LOG,
    FAKE_FIO_FAIL: process.env.FAKE_FIO_FAIL,
  };
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  /** Runs depth 1 in `rounds` rounds with the fake fio first on PATH; returns its log too. */
  async function runWithFakeFio(rounds: number, fail: boolean) {
    const bin = tempDir();
    fs.writeFileSync(path.join(bin, 'fio'), FAKE_FIO, { mode: 0o755 });
    process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
    process.env.FAKE_FIO_LOG = path.join(bin, 'log');
    if (fail) process.env.FAKE_FIO_FAIL = '1';
    const params = {
      ...tiny.params,
      depths: { quick: '1', full: '1' },
      rounds: { quick: rounds, full: rounds },
      fioCheck: { quick: 1, full: 1 },
      fioDepths: { quick: '1', full: '1' },
    };
    const results = await runExperiment(
      { ...tiny, params },
      { dir: tempDir(), quick: true, seconds: 0.3 },
    );
    const log = fs.readFileSync(path.join(bin, 'log'), 'utf8').trim().split('\n');
    return { results, log };
  }

  let paired: Results;

  it("runs fio's jobs in our rounds, alternating which goes first, on our files", async () => {
    const { results, log } = await runWithFakeFio(3, false);
    paired = results;
    expectWellFormed(results);
    const runtimeMs = Math.round(Number(results.parameters.syncedRoundSeconds) * 1000);
    const runs = log.map((line) => line.split(' '));
    // Per round each method's pair, the second round starting with append (interleave rotates
    // which design goes first); 3 rounds, once each.
    expect(runs.map(([file]) => file)).toEqual([
      'random-write.bin',
      'append.bin',
      'append.bin',
      'random-write.bin',
      'random-write.bin',
      'append.bin',
    ]);
    for (const run of runs) expect(run.slice(1, 4)).toEqual(['1', `${runtimeMs}ms`, '1']);
    // The append file when fio started: ours appended before fio in round 1, not between
    // round 1's fio and round 2's (fio first), and again before round 3's fio (ours first).
    const appendBytes = runs.filter(([file]) => file === 'append.bin').map((run) => Number(run[5]));
    expect(appendBytes[1]).toBe(appendBytes[0]);
    expect(appendBytes[2]).toBeGreaterThan(appendBytes[1] ?? Infinity);
    expect(results.notes.join('\n')).toMatch(/fio-fake, .*at depth 1 .*in each of the 3 rounds/);
  });

  it('gives fio one sample per round and a gated within-run ratio per round pair', () => {
    const results = paired;
    const fio = metricNamed(results, 'queue-depth.random-write.fio.1.fioIops');
    expect(fio).toMatchObject({
      unit: 'ops/s',
      kind: 'timing',
      count: 3,
      // fio's runs 1, 4 and 5 (the second round starts with append's pair).
      samples: [1000, 4000, 5000],
      labels: { engine: 'fio', depth: 1, ioMode: 'O_DIRECT' },
    });
    const latency = metricNamed(results, 'queue-depth.append.fio.1.fioLatencyNs');
    expect(latency).toMatchObject({ count: 200 + 300 + 600, p99: expect.any(Number) });
    for (const method of ['random-write', 'append']) {
      const ours = metricNamed(results, `queue-depth.${method}.libuv.1.iops`).samples ?? [];
      const theirs = metricNamed(results, `queue-depth.${method}.fio.1.fioIops`).samples ?? [];
      const fraction = metricNamed(results, `queue-depth.${method}.libuv.1.fractionOfFio`);
      expect(fraction).toMatchObject({
        unit: 'ratio',
        kind: 'ratio',
        class: 'timing',
        direction: 'higher',
        count: 3,
      });
      expect(fraction.samples).toHaveLength(3);
      fraction.samples?.forEach((ratio, round) =>
        expect(ratio).toBeCloseTo((ours[round] ?? 0) / (theirs[round] ?? 1), 9),
      );
    }
    expect(metricsOf(results, 'fractionOfFio')).toHaveLength(2);
  });

  it('notes a failing fio, stops running it, and keeps no fio figures', async () => {
    const { results, log } = await runWithFakeFio(2, true);
    expect(log).toHaveLength(2);
    expect(results.notes.join('\n')).toMatch(
      /fio append at depth 1: round 1: fio exited with 1: fio: fake failure; no fio figures/,
    );
    expect(results.metrics.filter((metric) => /fio/i.test(metric.name))).toEqual([]);
    expect(metricsOf(results, 'iops').length).toBeGreaterThan(0);
  });
});
