import { describe, expect, it } from 'vitest';
import { runExperiment } from '../lab/experiment.js';
import type { JournalInfo } from '../lab/probes/fs-journal.js';
import type { PhaseIo } from '../lab/io.js';
import type { Results } from '../lab/results.js';
import {
  expectContractCharts,
  expectWellFormed,
  metricNamed,
  metricsOf,
} from '../test/fixtures/experiment-shape.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { experiment, shareBytes } from './write-amplification.js';

const tempDir = tempDirs('write-amplification');

const tiny = {
  ...experiment,
  params: {
    ...experiment.params,
    backlogMessages: { quick: 256, full: 256 },
    inFlightMessages: { quick: 8, full: 8 },
    rounds: { quick: 2, full: 2 },
  },
};

function phase(deviceWriteBytes: number | null): PhaseIo {
  return {
    elapsedNs: 1,
    proc: null,
    fileIo: null,
    device:
      deviceWriteBytes === null
        ? null
        : {
            disks: ['vda'],
            readIos: 0,
            readBytes: 0,
            writeIos: 3,
            writeBytes: deviceWriteBytes,
            flushIos: 1,
            discardBytes: 0,
            busyMs: 1,
            timeInQueueMs: 1,
          },
  };
}

const NO_JOURNAL: JournalInfo = { kind: 'none', evidence: 'journal_task reads <none>' };
const JOURNAL: JournalInfo = { kind: 'present', evidence: 'jbd2 runs' };

describe('splitting the device bytes into shares', () => {
  it('gives data, a zero journal and the rest as metadata without a journal', () => {
    expect(shareBytes(phase(12_288), 8_192, NO_JOURNAL)).toEqual({
      total: 12_288,
      data: 8_192,
      journal: 0,
      metadata: 4_096,
    });
  });

  it('gives only total and data when a journal cannot be told from metadata', () => {
    expect(shareBytes(phase(12_288), 8_192, JOURNAL)).toEqual({ total: 12_288, data: 8_192 });
  });

  it('leaves metadata out rather than report it negative', () => {
    expect(shareBytes(phase(4_096), 8_192, NO_JOURNAL)).toEqual({
      total: 4_096,
      data: 8_192,
      journal: 0,
    });
  });

  it('gives nothing without the device counters', () => {
    expect(shareBytes(phase(null), 8_192, NO_JOURNAL)).toEqual({});
  });
});

describe('the write-amplification experiment', () => {
  let results: Results;

  it('runs both designs with and without syncs on a tiny budget', async () => {
    results = await runExperiment(tiny, { dir: tempDir(), quick: true, seconds: 0.4 });
    expectWellFormed(results);
    expect(results.headline).toMatch(/course predicts 8 KiB and 1 KiB/);
  });

  it('labels bytes per message by design, policy and share, and the report charts them', () => {
    const perMessage = metricsOf(results, 'deviceBytesPerMsg');
    if (results.notes.some((note) => /not on a block device/.test(note))) {
      expect(perMessage).toEqual([]);
      return;
    }
    for (const metric of perMessage) {
      expect(metric).toMatchObject({ unit: 'B/msg', class: 'measurement' });
      expect(Object.keys(metric.labels ?? {}).sort()).toEqual(['design', 'policy', 'share']);
    }
    for (const design of ['A', 'B']) {
      for (const policy of ['none', 'always']) {
        const prefix = `write-amplification.${design}.${policy}`;
        const total = metricNamed(results, `${prefix}.total.deviceBytesPerMsg`).median;
        const parts = ['data', 'journal', 'metadata'].map(
          (share) =>
            perMessage.find((metric) => metric.name === `${prefix}.${share}.deviceBytesPerMsg`)
              ?.median,
        );
        if (parts.every((part) => part !== undefined)) {
          expect(parts.reduce((sum, part) => (sum ?? 0) + (part ?? 0), 0)).toBeCloseTo(total);
        }
      }
      const ratio = metricNamed(results, 'write-amplification.always.ratioAB');
      const a = metricNamed(results, 'write-amplification.A.always.total.deviceBytesPerMsg');
      const b = metricNamed(results, 'write-amplification.B.always.total.deviceBytesPerMsg');
      expect(ratio).toMatchObject({ kind: 'ratio', unit: 'ratio' });
      expect(ratio.median).toBeCloseTo(a.median / b.median);
    }
    expectContractCharts(results);
  });

  it("splits design B's total under always into named causes that add up to it", () => {
    const rows = metricsOf(results, 'ledgerBytesPerMsg');
    if (results.notes.some((note) => /not on a block device/.test(note))) {
      expect(rows).toEqual([]);
      return;
    }
    const prefix = 'write-amplification.B.always';
    const total = metricNamed(results, `${prefix}.total.deviceBytesPerMsg`).median;
    const data = metricNamed(results, `${prefix}.data.deviceBytesPerMsg`).median;
    for (const row of rows) {
      expect(row).toMatchObject({ unit: 'B/msg', class: 'measurement', direction: 'lower' });
      expect(row.labels).toMatchObject({ design: 'B', policy: 'always' });
      expect(row.name).toBe(`${prefix}.${String(row.labels?.['cause'])}.ledgerBytesPerMsg`);
      expect(row.description?.length, row.name).toBeGreaterThan(0);
    }
    const causes = rows.map((row) => row.labels?.['cause']);
    expect(causes).toEqual(expect.arrayContaining(['recordPage', 'preallocation', 'metadata']));
    const sum = (picked: typeof rows) => picked.reduce((bytes, row) => bytes + row.median, 0);
    expect(sum(rows)).toBeCloseTo(total, 6);
    // The traced rows count the same blocks as the data share, by cause.
    expect(sum(rows.filter((row) => row.labels?.['cause'] !== 'metadata'))).toBeCloseTo(data, 6);
  });

  it("puts the course's 8 KiB and 1 KiB beside the totals under always", () => {
    const course = results.predictions.filter((prediction) => prediction.model === 'course');
    expect(course.map(({ name, value, labels }) => ({ name, value, labels }))).toEqual([
      {
        name: 'write-amplification.A.always.total.deviceBytesPerMsg',
        value: 8192,
        labels: { design: 'A', policy: 'always', share: 'total' },
      },
      {
        name: 'write-amplification.B.always.total.deviceBytesPerMsg',
        value: 1024,
        labels: { design: 'B', policy: 'always', share: 'total' },
      },
    ]);
  });
});
