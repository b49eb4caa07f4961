import { describe, expect, it } from 'vitest';
import type { Results } from '../lab/results.js';
import { groupOf, groupsOf } from '../test/fixtures/experiment-groups.js';
import {
  sampleAllExperiments,
  samplePuzzle,
  sampleRecovery,
  sampleSegmentSize,
  sampleUnknownExperiment,
} from '../test/fixtures/sample-experiments.js';
import { puzzleAnswer, puzzleSentence } from './glance-puzzle.js';
import { runWarnings } from './glance-warnings.js';
import { quantityMeanings } from './meanings.js';
import { metricTitle } from './metric-titles.js';
import { buildReportModel } from './report-model.js';

function noisy(results: Results): Results {
  const metrics = results.metrics.map((metric) =>
    metric.name === 'puzzle.A.always.msgsPerSec'
      ? { ...metric, samples: [30, 50, 52, 54, 70, 90], cv: 0.4 }
      : metric,
  );
  return { ...results, metrics };
}

describe('the first screen', () => {
  it('answers the puzzle on this disk and on the modelled 7,200 rpm disk, A and B named', () => {
    const text = puzzleSentence(puzzleAnswer(samplePuzzle()), 'on this disk');
    expect(text).toBe(
      'With every send synced, on this disk the log (B) stored 2,900 msgs/s and ' +
        'the slot file (A) 52: 55.8×. On the modelled 7,200 rpm disk (hdd:exos-x20, replaying ' +
        "these writes): B 96 against A 61, 1.57×. The course's comparison (B streaming, A synced " +
        'per message): 3,462× here.',
    );
  });

  it('says what plan recommends from the sizing results, or that there are none', () => {
    const model = buildReportModel(groupsOf(sampleAllExperiments()), new Map(), []);
    const sizing = model.firstScreen.answers.find((answer) => answer.topic === 'Sizing a log');
    expect(sizing?.text).toMatch(/^For 1 KiB messages at 5 a second, kept 7 days, `loglab plan /);
    expect(sizing?.text).toMatch(/recommends \d+ [KMG]iB segments/);
    const none = buildReportModel(groupsOf([samplePuzzle()]), new Map(), []);
    expect(none.firstScreen.answers.map((answer) => answer.topic)).toEqual([
      'The puzzle',
      'Sizing a log',
    ]);
    expect(none.firstScreen.answers[1]?.text).toMatch(/^No sizing results here/);
  });

  it('warns of a noisy run, storage that is not a disk, a shared disk and a busy host, and only then', () => {
    expect(runWarnings(groupOf(samplePuzzle()).runs)).toEqual([]);
    const base = noisy(samplePuzzle());
    const memory = { ...base, environment: { ...base.environment, storage: 'memory' as const } };
    const shared = {
      ...memory,
      deviceShared: {
        phases: 4,
        sharedPhases: 2,
        otherBytes: 3e6,
        ownBytes: 1e6,
        deviceBytes: 4e6,
        fraction: 0.75,
      },
      cpuSteal: { share: 0.22, stealTicks: 220, totalTicks: 1000 },
    };
    const warnings = runWarnings(groupOf(shared).runs);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/^Noisy run: 1 of \d+ timed figures .* most puzzle throughput/);
    expect(warnings[1]).toMatch(/^Not a disk: puzzle measured memory storage/);
    expect(warnings[2]).toMatch(/^Busy disk: other programs wrote up to 75% of the disk's bytes/);
    expect(warnings[3]).toMatch(/^Busy host: the hypervisor gave up to 22% of this machine's CPU/);
    const calm = { ...samplePuzzle(), cpuSteal: { share: 0.01, stealTicks: 1, totalTicks: 100 } };
    expect(runWarnings(groupOf(calm).runs)).toEqual([]);
  });
});

describe('what the figures mean', () => {
  it('says a description once per quantity, numbers that differ as a range', () => {
    const results = samplePuzzle();
    results.metrics = results.metrics.map((metric, i) =>
      metric.name.endsWith('.sendLatencyNs')
        ? { ...metric, description: `latency over all ${1000 + i} operations; mode: async` }
        : metric.name.endsWith('.msgsPerSec')
          ? { ...metric, description: `rate per round; deletes: ${metric.labels?.deletes}` }
          : metric,
    );
    const meanings = quantityMeanings(groupOf(results));
    expect(meanings.get('sendLatencyNs')).toMatch(
      /^latency over all 1,\d+–1,\d+ operations; mode: async$/,
    );
    expect(meanings.get('msgsPerSec')).toBe(
      'rate per round; deletes: each delete synced | ' +
        'head saved every 1,000 deletes or 1 s | head saved at each delete | deletes share a sync ' +
        '| deletes not synced',
    );
  });
});

describe('metric titles', () => {
  it('come from the titles the document carries, the raw quantity where it gives none', () => {
    expect(metricTitle([samplePuzzle()], 'msgsPerSec')).toBe('throughput');
    expect(metricTitle([sampleSegmentSize()], 'openNs')).toBe('open time');
    expect(metricTitle([sampleRecovery()], 'openNs')).toBe('time until the log serves again');
    expect(metricTitle([sampleUnknownExperiment()], 'widgets')).toBe('widgets');
    expect(metricTitle([sampleSegmentSize()], 'noSuchQuantity')).toBe('noSuchQuantity');
  });

  it('come from the first document that has one: a file written before titles reads as a newer', () => {
    const { titles: _, ...untitled } = samplePuzzle();
    expect(metricTitle([untitled], 'msgsPerSec')).toBe('msgsPerSec');
    expect(metricTitle([untitled, samplePuzzle()], 'msgsPerSec')).toBe('throughput');
  });
});
