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
import { experiment } from './durability.js';

const tempDir = tempDirs('durability');
const tiny = { ...experiment, params: { ...experiment.params, rounds: { quick: 1, full: 1 } } };

describe('the durability experiment', () => {
  let results: Results;

  it('runs every policy, delay and producer count on a tiny budget', async () => {
    results = await runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.5 });
    expectWellFormed(results);
    expect(results.headline).toMatch(/messages per fdatasync/);
  });

  it('labels each figure by policy, producers and, for group commit, the delay and where it syncs', () => {
    for (const quantity of ['msgsPerSec', 'sendLatencyNs', 'lossWindowMsgs']) {
      const labels = metricsOf(results, quantity).map((metric) => metric.labels);
      expect(labels).toHaveLength(24);
      for (const producers of [1, 4, 16, 64]) {
        expect(labels).toContainEqual({ policy: 'always', producers });
        expect(labels).toContainEqual({ policy: 'none', producers });
        for (const maxDelayMs of [0.1, 1, 10]) {
          expect(labels).toContainEqual({ policy: 'group', maxDelayMs, groupSync: 'inline', producers });
        }
        expect(labels).toContainEqual(
          { policy: 'group', maxDelayMs: 0.1, groupSync: 'thread-pool', producers });
      }
    }
    expect(metricNamed(results, 'durability.group.0.1ms.thread-pool.16.lossWindowMsgs').median)
      .toBe(0);
    expectHonestStatistics(metricNamed(results, 'durability.group.1ms.16.sendLatencyNs'));
    expectContractCharts(results);
  });

  it('counts messages per fsync from the fsyncs the log made, for the policies that sync', () => {
    const perFsync = metricsOf(results, 'msgsPerFsync');
    expect(perFsync.every((metric) => metric.labels?.policy !== 'none')).toBe(true);
    expect(perFsync.length).toBeGreaterThan(0);
    for (const metric of perFsync) {
      const prefix = metric.name.slice(0, -'.msgsPerFsync'.length);
      const messages = metricNamed(results, `${prefix}.sendLatencyNs`).count ?? 0;
      const fsyncs = results.counters[`${prefix}.fdatasyncCalls`] ?? 0;
      expect(metric.median * fsyncs).toBeCloseTo(messages);
      if (metric.labels?.policy === 'always') expect(metric.median).toBeLessThanOrEqual(1);
    }
  });

  it('finds no acknowledged message unsynced under always and group, some under none', () => {
    for (const metric of metricsOf(results, 'lossWindowMsgs')) {
      expect(metric.unit).toBe('msgs');
      if (metric.labels?.policy === 'none') expect(metric.median).toBeGreaterThan(0);
      else expect(metric.median).toBe(0);
    }
  });
});
