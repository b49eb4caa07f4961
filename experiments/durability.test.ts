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
import { SYNCED_ROUND_MIN_SECONDS } from '../lab/round-length.js';
import { GROUP_COMMIT_TARGETS, experiment } from './durability.js';
import { checkTargets } from './bench/targets.js';
import { OFFERED_PCTS } from './support/open-loop.js';

const tempDir = tempDirs('durability');
const tiny = {
  ...experiment,
  params: {
    ...experiment.params,
    rounds: { quick: 1, full: 1 },
    openLoopRounds: { quick: 1, full: 1 },
    openLoopSeconds: { quick: 0.04, full: 0.04 },
  },
};

describe('the durability experiment', () => {
  let results: Results;
  /** Where the system refuses O_DIRECT the .direct configurations are left out, with a note. */
  const wroteDirectly = () => !results.notes.some((note) => /refused direct writes/.test(note));
  const DIRECT_COUNTS = [1, 16];

  it('runs every policy, delay and producer count on a tiny budget', async () => {
    results = await runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.5 });
    expectWellFormed(results);
    expect(results.headline).toMatch(/messages per fdatasync/);
    expect(results.headline).not.toMatch(/NaN/);
  });

  it('labels each figure by policy, producers, where it syncs and, for group commit, the delay', () => {
    for (const quantity of ['msgsPerSec', 'sendLatencyNs', 'lossWindowMsgs']) {
      const labels = metricsOf(results, quantity).map((metric) => metric.labels);
      expect(labels).toHaveLength(wroteDirectly() ? 18 : 14);
      for (const producers of [1, 4, 16, 64]) {
        expect(labels).toContainEqual({ policy: 'always', syncMode: 'thread-pool', producers });
        expect(labels).toContainEqual({
          policy: 'group',
          maxDelayMs: 0,
          syncMode: 'thread-pool',
          producers,
        });
      }
      for (const producers of [1, 16]) {
        expect(labels).toContainEqual({ policy: 'always', syncMode: 'inline', producers });
        expect(labels).toContainEqual({
          policy: 'group',
          maxDelayMs: 0,
          syncMode: 'inline',
          producers,
        });
        expect(labels).toContainEqual({ policy: 'none', producers });
      }
      if (!wroteDirectly()) continue;
      for (const producers of DIRECT_COUNTS) {
        expect(labels).toContainEqual({
          policy: 'always',
          syncMode: 'thread-pool',
          writes: 'direct',
          producers,
        });
        expect(labels).toContainEqual({
          policy: 'group',
          maxDelayMs: 0,
          syncMode: 'thread-pool',
          writes: 'direct',
          producers,
        });
      }
    }
    expect(metricNamed(results, 'durability.group.16.lossWindowMsgs').median).toBe(0);
    expectHonestStatistics(metricNamed(results, 'durability.group.16.sendLatencyNs'));
    expectContractCharts(results);
  });

  it('gives group over always at every producer count, and thread-pool over inline syncs', () => {
    expect(metricsOf(results, 'groupVsAlways').map((metric) => metric.name)).toEqual([
      ...[1, 4, 16, 64].map((producers) => `durability.${producers}.groupVsAlways`),
      ...(wroteDirectly()
        ? DIRECT_COUNTS.map((producers) => `durability.${producers}.direct.groupVsAlways`)
        : []),
    ]);
    for (const producers of [1, 4, 16, 64]) {
      const ratio = metricNamed(results, `durability.${producers}.groupVsAlways`);
      const group = metricNamed(results, `durability.group.${producers}.msgsPerSec`);
      const always = metricNamed(results, `durability.always.${producers}.msgsPerSec`);
      expect(ratio).toMatchObject({ kind: 'ratio', labels: { producers } });
      expect(ratio.description).toMatch(/taking turns of 0.1 s/);
      // One round each: the ratio of the rounds is the ratio of the medians.
      expect(ratio.median).toBeCloseTo(group.median / always.median);
    }
    expect(
      metricsOf(results, 'threadPoolVsInline')
        .map((metric) => metric.name)
        .sort(),
    ).toEqual(
      ['always', 'group']
        .flatMap((policy) =>
          [1, 16].map((producers) => `durability.${policy}.${producers}.threadPoolVsInline`),
        )
        .sort(),
    );
  });

  it('runs always and group writing directly beside the page-cache pair, and counts their loss window', () => {
    if (!wroteDirectly()) {
      expect(metricsOf(results, 'directVsPageCache')).toEqual([]);
      return;
    }
    for (const producers of DIRECT_COUNTS) {
      const group = metricNamed(results, `durability.group.direct.${producers}.msgsPerSec`);
      const always = metricNamed(results, `durability.always.direct.${producers}.msgsPerSec`);
      const ratio = metricNamed(results, `durability.${producers}.direct.groupVsAlways`);
      expect(ratio).toMatchObject({ kind: 'ratio', labels: { producers, writes: 'direct' } });
      expect(ratio.median).toBeCloseTo(group.median / always.median);
      for (const [policy, direct] of [
        ['group', group],
        ['always', always],
      ] as const) {
        const cached = metricNamed(results, `durability.${policy}.${producers}.msgsPerSec`);
        const overCache = metricNamed(
          results,
          `durability.${policy}.${producers}.directVsPageCache`,
        );
        expect(overCache).toMatchObject({ kind: 'ratio', labels: { policy, producers } });
        expect(overCache.median).toBeCloseTo(direct.median / cached.median);
        // The watermark follows direct writes (one handle) and their syncs (another) by path.
        expect(
          metricNamed(results, `durability.${policy}.direct.${producers}.lossWindowMsgs`).median,
        ).toBe(0);
        expect(
          metricNamed(results, `durability.${policy}.direct.${producers}.msgsPerFsync`).median,
        ).toBeGreaterThan(0);
      }
    }
  });

  it("checks issue 20's targets on the figures it reports (the quick sweep's counts here)", () => {
    const checks = checkTargets(results, GROUP_COMMIT_TARGETS);
    const measured = checks.filter((check) => check.value !== null).map((check) => check.target);
    expect(measured.map(({ metric, atLeast }) => [metric, atLeast])).toEqual([
      ['durability.1.groupVsAlways', 1],
      ['durability.4.groupVsAlways', 1],
      ['durability.16.groupVsAlways', 1],
      ['durability.64.groupVsAlways', 1],
      ['durability.16.groupVsAlways', 10],
      ['durability.64.groupVsAlways', 20],
    ]);
  });

  it('counts messages per fsync from the fsyncs the log made, a sample per round, for the policies that sync', () => {
    const perFsync = metricsOf(results, 'msgsPerFsync');
    // One round here: its figure is the whole run's.
    for (const metric of perFsync) expect(metric.samples).toEqual([metric.median]);
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

  it('finds no acknowledged message unsynced under always and group, a counter; some under none, a measurement', () => {
    for (const metric of metricsOf(results, 'lossWindowMsgs')) {
      expect(metric.unit).toBe('msgs');
      if (metric.labels?.policy === 'none') {
        expect(metric).toMatchObject({ class: 'measurement', kind: 'timing' });
        expect(metric.median).toBeGreaterThan(0);
      } else {
        expect(metric).toMatchObject({ class: 'counter', kind: 'counter', median: 0 });
      }
    }
  });

  it('sends open-loop at fixed shares of the closed-loop rate of always, group and none', () => {
    // Each policy as a log runs it by default, one producer.
    const series = [
      { policy: 'always', syncMode: 'thread-pool', producers: 1 },
      { policy: 'group', maxDelayMs: 0, syncMode: 'thread-pool', producers: 1 },
      { policy: 'none', producers: 1 },
    ];
    const prefixes = ['durability.always.1', 'durability.group.1', 'durability.none.1'];
    expect(metricsOf(results, 'openLoopLatencyNs').map((metric) => metric.name)).toEqual(
      prefixes.flatMap((prefix) =>
        OFFERED_PCTS.map((pct) => `${prefix}.offered${pct}.openLoopLatencyNs`),
      ),
    );
    prefixes.forEach((prefix, i) => {
      const closed = metricNamed(results, `${prefix}.msgsPerSec`).median;
      for (const pct of OFFERED_PCTS) {
        const name = `${prefix}.offered${pct}`;
        const latency = metricNamed(results, `${name}.openLoopLatencyNs`);
        const offeredPerSec = Math.max(1, Math.round((closed * pct) / 100));
        const labels = { ...series[i], offeredPct: pct, offeredPerSec, mode: 'open-loop-async' };
        expect(latency).toMatchObject({ unit: 'ns', class: 'timing', direction: 'lower', labels });
        expectHonestStatistics(latency);
        expect(latency.p99 === undefined).toBe((latency.count ?? 0) < 100);
        expect(metricNamed(results, `${name}.openLoopMsgsPerSec`)).toMatchObject({
          unit: 'msgs/s',
          class: 'timing',
          direction: 'higher',
          labels,
        });
        const late = metricNamed(results, `${name}.openLoopLateSends`);
        expect(late).toMatchObject({ unit: 'msgs', class: 'measurement', labels });
        expect(late.median).toBeLessThanOrEqual(latency.count ?? 0);
        expect(metricNamed(results, `${name}.openLoopServiceNs`).count).toBe(latency.count);
      }
    });
    expect(results.notes.join(' ')).toMatch(/Open loop .* durability\.always\.1, /);
  });

  it('charts open-loop latency against offered load, a line per policy', () => {
    const points = expectContractCharts(results).get('open-loop-latency') ?? [];
    const latency = metricsOf(results, 'openLoopLatencyNs');
    expect(points).toHaveLength(
      latency.length + latency.filter((metric) => metric.p99 !== undefined).length,
    );
    expect(new Set(points.map((point) => point.x))).toEqual(new Set(OFFERED_PCTS));
    expect(new Set(points.map((point) => point.series))).toEqual(
      new Set(['always · thread-pool', 'group · 0 ms · thread-pool', 'none']),
    );
  });

  it('runs full open-loop rounds as long as synced ones, quick ones in seconds', () => {
    const { openLoopSeconds, openLoopRounds } = experiment.params;
    expect(openLoopSeconds?.full).toBeGreaterThanOrEqual(SYNCED_ROUND_MIN_SECONDS);
    // always, group and none, four offered rates each.
    expect(
      3 * OFFERED_PCTS.length * Number(openLoopRounds?.quick) * Number(openLoopSeconds?.quick),
    ).toBeLessThanOrEqual(3);
  });
});
