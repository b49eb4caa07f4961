import { describe, expect, it } from 'vitest';
import { runExperiment } from '../lab/experiment.js';
import type { Results } from '../lab/results.js';
import {
  expectContractCharts,
  expectWellFormed,
  metricNamed,
  metricsOf,
} from '../test/fixtures/experiment-shape.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { SYNCED_ROUND_MIN_SECONDS } from '../lab/round-length.js';
import { OFFERED_PCTS } from './support/open-loop.js';
import {
  COMPARISONS,
  DELETE_GUARANTEES,
  PAIRS,
  VARIANTS,
  experiment,
  whyTheGap,
} from './puzzle.js';

const tempDir = tempDirs('puzzle');

const tiny = {
  ...experiment,
  params: {
    ...experiment.params,
    backlogMessages: { quick: 256, full: 256 },
    inFlightMessages: { quick: 8, full: 8 },
    producers: { quick: 4, full: 4 },
    rounds: { quick: 2, full: 2 },
    openLoopPolicies: { quick: 'always,group', full: 'always,group' },
    openLoopRounds: { quick: 1, full: 1 },
    openLoopSeconds: { quick: 0.04, full: 0.04 },
  },
};

describe('the puzzle experiment', () => {
  let results: Results;
  const predictionOf = (name: string, model: string) =>
    results.predictions.find((prediction) => prediction.name === name && prediction.model === model)
      ?.value ?? Number.NaN;

  it('runs both designs at every policy on a tiny budget into a valid document', async () => {
    results = await runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.5 });
    expectWellFormed(results);
    expect(results.experiment.id).toBe('puzzle');
    expect(results.headline).toMatch(/7,200 rpm/);
  });

  it('labels each series by design, policy, comparison and how it keeps deletes', () => {
    for (const quantity of ['msgsPerSec', 'sendLatencyNs']) {
      const metrics = metricsOf(results, quantity).filter(
        (metric) => metric.name !== 'puzzle.A.course.msgsPerSec',
      );
      expect(metrics.map((metric) => metric.labels)).toEqual(
        VARIANTS.map((variant) =>
          expect.objectContaining({
            design: variant.design,
            policy: variant.policy,
            comparison: COMPARISONS[variant.comparison].category,
            deletes: DELETE_GUARANTEES[variant.deletes],
          }),
        ),
      );
    }
    expect(metricNamed(results, 'puzzle.B.alwaysHeadEach.msgsPerSec').labels?.variant).toBe(
      'head saved at each delete',
    );
    expect(metricNamed(results, 'puzzle.A.always.msgsPerSec').unit).toBe('msgs/s');
    expect(metricNamed(results, 'puzzle.B.group.sendLatencyNs')).toMatchObject({ unit: 'ns' });
    const points = expectContractCharts(results);
    expect(points.get('throughput')?.filter((point) => !point.predicted)).toHaveLength(9);
  });

  it('shows the three comparisons, each with its guarantee, measured and predicted', () => {
    for (const comparison of ['always', 'group', 'course'] as const) {
      const ratio = metricNamed(results, `puzzle.${comparison}.ratioBA`);
      expect(ratio).toMatchObject({
        kind: 'ratio',
        class: 'timing',
        direction: 'higher',
        labels: { comparison: COMPARISONS[comparison].category },
      });
      for (const model of ['hdd:exos-x20', 'ssd:990-pro']) {
        expect(predictionOf(`puzzle.${comparison}.ratioBA`, model)).toBeGreaterThan(0);
      }
    }
    expect(predictionOf('puzzle.course.ratioBA', 'course')).toBeCloseTo(5_560, -2);
    expect(results.headline).toMatch(/Same policy, always \(every send synced before its OK; A /);
    expect(results.headline).toMatch(/Same policy, group \(each send covered by a shared /);
    expect(results.headline).toMatch(
      /The course's comparison, A synced per message .* B streaming/,
    );
    expect(results.headline?.match(/Exos X20 model [\d,.]+×/g)).toHaveLength(3);
    expect(results.headline).toMatch(/Why/);
  });

  it("measures the course's B streaming with its one sync a round, and never under always", () => {
    const streaming = metricNamed(results, 'puzzle.B.course.msgsPerSec');
    expect(streaming.labels).toMatchObject({ design: 'B', policy: 'none' });
    expect(streaming.description).toMatch(/one fdatasync of the log ending the round/);
    expect(metricNamed(results, 'puzzle.B.course.fsyncsPerMsg').median).toBeGreaterThan(0);
    const a = metricNamed(results, 'puzzle.A.always.msgsPerSec');
    expect(metricNamed(results, 'puzzle.A.course.msgsPerSec').samples).toEqual(a.samples);
    const courseNames = results.predictions.filter((p) => p.model === 'course').map((p) => p.name);
    expect(courseNames).not.toContain('puzzle.B.always.msgsPerSec');
    expect(courseNames).toContain('puzzle.B.course.msgsPerSec');
  });

  it('gives each ratio B/A round by round from the two throughputs', () => {
    for (const pair of PAIRS) {
      const ratio = metricNamed(results, `puzzle.${pair.ratio}.ratioBA`);
      const a = metricNamed(results, `puzzle.A.${pair.a}.msgsPerSec`).samples ?? [];
      const b = metricNamed(results, `puzzle.B.${pair.b}.msgsPerSec`).samples ?? [];
      expect(ratio.kind).toBe('ratio');
      expect(ratio.samples).toHaveLength(a.length);
      ratio.samples?.forEach((value, i) => expect(value).toBeCloseTo((b[i] ?? 0) / (a[i] ?? 1)));
    }
  });

  it('counts fsyncs per message from the FileIO: none, one per write under always', () => {
    expect(metricNamed(results, 'puzzle.A.none.fsyncsPerMsg')).toMatchObject({
      kind: 'counter',
      median: 0,
    });
    // A send and a delete are each one synced slot write.
    expect(metricNamed(results, 'puzzle.A.always.fsyncsPerMsg').median).toBeCloseTo(2, 1);
    expect(metricNamed(results, 'puzzle.B.always.fsyncsPerMsg').median).toBeGreaterThanOrEqual(1);
  });

  it('gives the machine-decided figures a sample per round, so compare can gate them across runs', () => {
    const rounds = metricNamed(results, 'puzzle.B.group.msgsPerSec').samples?.length ?? 0;
    const perRound = [
      ...metricsOf(results, 'deviceBytesPerMsg'),
      ...metricsOf(results, 'fsyncsPerMsg').filter((metric) => metric.class === 'measurement'),
    ];
    // No device under a tmpfs: the device figures are left out there, the syncs never.
    expect(perRound.length).toBeGreaterThan(0);
    for (const metric of perRound) {
      // A round that sent no message (a tiny one, on a slow disk) has no figure per message.
      const count = metric.samples?.length ?? 0;
      expect(count, metric.name).toBeGreaterThan(0);
      expect(count, metric.name).toBeLessThanOrEqual(rounds);
      expect(metric, metric.name).toMatchObject({ class: 'measurement', count });
    }
  });

  it("sends open-loop at fixed shares of each series' closed-loop rate, A and B", () => {
    const latency = metricsOf(results, 'openLoopLatencyNs');
    const series = ['A.always', 'B.always', 'A.group', 'B.group'];
    expect(latency.map((metric) => metric.name)).toEqual(
      series.flatMap((name) =>
        OFFERED_PCTS.map((pct) => `puzzle.${name}.offered${pct}.openLoopLatencyNs`),
      ),
    );
    for (const name of series) {
      const closed = metricNamed(results, `puzzle.${name}.sendLatencyNs`).labels ?? {};
      const offered = OFFERED_PCTS.map((pct) => {
        const prefix = `puzzle.${name}.offered${pct}`;
        const metric = metricNamed(results, `${prefix}.openLoopLatencyNs`);
        expect(metric).toMatchObject({
          unit: 'ns',
          class: 'timing',
          direction: 'lower',
          labels: { ...closed, offeredPct: pct, mode: 'open-loop-async' },
        });
        expect(metric.description).toMatch(/from its intended start/);
        expect(metric.p99 === undefined).toBe((metric.count ?? 0) < 100);
        expect(metricNamed(results, `${prefix}.openLoopMsgsPerSec`)).toMatchObject({
          unit: 'msgs/s',
          class: 'timing',
          direction: 'higher',
          labels: metric.labels,
        });
        const late = metricNamed(results, `${prefix}.openLoopLateSends`);
        expect(late).toMatchObject({
          unit: 'msgs',
          class: 'measurement',
          direction: 'lower',
          labels: metric.labels,
        });
        expect(late.median).toBeLessThanOrEqual(metric.count ?? 0);
        expect(metricNamed(results, `${prefix}.openLoopServiceNs`).count).toBe(metric.count);
        return Number(metric.labels?.offeredPerSec);
      });
      // One closed-loop rate behind all four, each rounded to a whole send a second.
      const base = (offered[3] ?? 0) / 0.9;
      offered.forEach((rate, i) =>
        expect(Math.abs(rate - (base * (OFFERED_PCTS[i] ?? 0)) / 100)).toBeLessThanOrEqual(1.5),
      );
    }
    expect(
      metricsOf(results, 'openLoopLatencyNs').map((metric) => metric.labels?.policy),
    ).not.toContain('none');
    expect(results.notes.join(' ')).toMatch(/Open loop .* 25\/50\/75\/90% of the send rate/);
    expect(results.counters['openLoop.elapsedNs']).toBeGreaterThan(0);
  });

  it('charts open-loop latency against offered load, a line per design and policy', () => {
    const points = expectContractCharts(results).get('open-loop-latency') ?? [];
    const medians = metricsOf(results, 'openLoopLatencyNs');
    const p99s = medians.filter((metric) => metric.p99 !== undefined);
    expect(points).toHaveLength(medians.length + p99s.length);
    expect(new Set(points.map((point) => point.x))).toEqual(new Set(OFFERED_PCTS));
    expect(new Set(points.map((point) => point.series))).toEqual(
      new Set(['A · always', 'B · always', 'A · group', 'B · group']),
    );
  });

  it('runs full open-loop rounds as long as synced ones, quick ones in seconds', () => {
    const { openLoopSeconds, openLoopRounds, openLoopPolicies } = experiment.params;
    expect(openLoopSeconds?.full).toBeGreaterThanOrEqual(SYNCED_ROUND_MIN_SECONDS);
    // Two designs per policy, four offered rates: the sends alone, before the consumers.
    const series = 2 * String(openLoopPolicies?.quick).split(',').length * OFFERED_PCTS.length;
    expect(
      series * Number(openLoopRounds?.quick) * Number(openLoopSeconds?.quick),
    ).toBeLessThanOrEqual(3);
  });

  it("sets both disk models and the course's arithmetic beside the measured figures", () => {
    const models = new Set(results.predictions.map((prediction) => prediction.model));
    expect(models).toEqual(new Set(['hdd:exos-x20', 'ssd:990-pro', 'course']));
    const course = results.predictions.filter((prediction) => prediction.model === 'course');
    expect(course.map((prediction) => prediction.name)).toEqual([
      'puzzle.A.always.msgsPerSec',
      'puzzle.A.course.msgsPerSec',
      'puzzle.B.course.msgsPerSec',
      'puzzle.course.ratioBA',
    ]);
    for (const model of ['hdd:exos-x20', 'ssd:990-pro']) {
      for (const pair of PAIRS) {
        const a = predictionOf(`puzzle.A.${pair.a}.msgsPerSec`, model);
        const b = predictionOf(`puzzle.B.${pair.b}.msgsPerSec`, model);
        expect(predictionOf(`puzzle.${pair.ratio}.ratioBA`, model)).toBeCloseTo(b / a);
      }
    }
  });
});

describe('why the gap on this disk is what it is', () => {
  it('says a synced random write costs about a synced append when the disk does not spin', () => {
    expect(whyTheGap(false, 0.6, 0.5)).toMatch(
      /small: this disk does not spin .* costs 1\.2× a synced append/,
    );
    expect(whyTheGap(false, 0.6, 0.5)).toMatch(/bandwidth against one sync per message/);
  });

  it('puts even the same-policy gap down to seek and turn on a spinning disk', () => {
    expect(whyTheGap(true, 12, 4.5)).toMatch(/this disk spins.*even the same-policy gap is large/);
  });
});
