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
import { experiment } from './puzzle.js';

const tempDir = tempDirs('puzzle');

const tiny = {
  ...experiment,
  params: {
    ...experiment.params,
    backlogMessages: { quick: 256, full: 256 },
    inFlightMessages: { quick: 8, full: 8 },
    producers: { quick: 4, full: 4 },
    rounds: { quick: 2, full: 2 },
  },
};

describe('the puzzle experiment', () => {
  let results: Results;

  it('runs both designs at every policy on a tiny budget into a valid document', async () => {
    results = await runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.5 });
    expectWellFormed(results);
    expect(results.experiment.id).toBe('puzzle');
    expect(results.headline).toMatch(/7,200 rpm/);
  });

  it('labels throughput and send latency by design and policy, as the report charts them', () => {
    for (const quantity of ['msgsPerSec', 'sendLatencyNs']) {
      const labels = metricsOf(results, quantity).map((metric) => metric.labels);
      expect(labels).toHaveLength(6);
      for (const policy of ['none', 'always', 'group']) {
        expect(labels).toContainEqual({ design: 'A', policy });
        expect(labels).toContainEqual({ design: 'B', policy });
      }
    }
    expect(metricNamed(results, 'puzzle.A.always.msgsPerSec').unit).toBe('msgs/s');
    expect(metricNamed(results, 'puzzle.B.group.sendLatencyNs')).toMatchObject({ unit: 'ns' });
    const points = expectContractCharts(results);
    expect(points.get('throughput')?.filter((point) => !point.predicted)).toHaveLength(6);
  });

  it('gives each ratio B/A round by round from the two throughputs', () => {
    for (const policy of ['none', 'always', 'group']) {
      const ratio = metricNamed(results, `puzzle.${policy}.ratioBA`);
      const a = metricNamed(results, `puzzle.A.${policy}.msgsPerSec`).samples ?? [];
      const b = metricNamed(results, `puzzle.B.${policy}.msgsPerSec`).samples ?? [];
      expect(ratio.kind).toBe('ratio');
      expect(ratio.samples).toHaveLength(a.length);
      ratio.samples?.forEach((value, i) => expect(value).toBeCloseTo((b[i] ?? 0) / (a[i] ?? 1)));
    }
  });

  it('counts fsyncs per message from the FileIO: none, one per write under always', () => {
    expect(metricNamed(results, 'puzzle.A.none.fsyncsPerMsg')).toMatchObject({
      kind: 'counter', median: 0 });
    // A send and a delete are each one synced slot write.
    expect(metricNamed(results, 'puzzle.A.always.fsyncsPerMsg').median).toBeCloseTo(2, 1);
    expect(metricNamed(results, 'puzzle.B.always.fsyncsPerMsg').median).toBeGreaterThanOrEqual(1);
  });

  it("sets both disk models and the seed's arithmetic beside the measured figures", () => {
    const models = new Set(results.predictions.map((prediction) => prediction.model));
    expect(models).toEqual(new Set(['hdd:exos-x20', 'ssd:990-pro', 'seed']));
    const seed = results.predictions.filter((prediction) => prediction.model === 'seed');
    expect(seed.map((prediction) => prediction.name)).toEqual([
      'puzzle.A.always.msgsPerSec', 'puzzle.B.always.msgsPerSec', 'puzzle.always.ratioBA']);
    for (const model of ['hdd:exos-x20', 'ssd:990-pro']) {
      const ofModel = results.predictions.filter((prediction) => prediction.model === model);
      const byName = (name: string) => ofModel.find((prediction) => prediction.name === name);
      for (const policy of ['none', 'always', 'group']) {
        const a = byName(`puzzle.A.${policy}.msgsPerSec`)?.value ?? Number.NaN;
        const b = byName(`puzzle.B.${policy}.msgsPerSec`)?.value ?? Number.NaN;
        expect(byName(`puzzle.${policy}.ratioBA`)?.value).toBeCloseTo(b / a);
      }
    }
  });
});
