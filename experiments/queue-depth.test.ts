import { describe, expect, it } from 'vitest';
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
        expect(value).toBeCloseTo(((iops.samples?.[i] ?? 0) * 4096) / 1e6));
    }
    expect(metricsOf(results, 'mbPerSec').some((metric) =>
      metric.labels?.method === 'slot-send')).toBe(false);
  });

  it('reports the depth the device reached, or io_uring only where it took effect', () => {
    if (results.environment.device.name !== null) {
      for (const metric of metricsOf(results, 'reachedDepth')) {
        expect(metric.unit).toBe('count');
        expect(metric.max).toBeGreaterThanOrEqual(metric.median);
      }
      expect(metricsOf(results, 'reachedDepth').length).toBeGreaterThan(0);
    }
    const uring = metricsOf(results, 'iops').filter((metric) =>
      metric.labels?.engine === 'io_uring');
    const notes = results.notes.join('\n');
    if (uring.length > 0) expect(notes).toMatch(/io_uring took effect/);
    else expect(notes).toMatch(/io_uring/);
  });
});
