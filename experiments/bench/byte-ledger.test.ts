/**
 * The byte-ledger bench on tiny parameters: every row names its cause, and a round's rows add up
 * to the device total it measured. Shapes and sums only, never a timing or a byte count.
 */
import { describe, expect, it } from 'vitest';
import { CAUSE_TITLES } from '../../lab/models/byte-ledger.js';
import type { Results } from '../../lab/results.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { runTiny } from '../../test/fixtures/tiny-experiment.js';
import { BYTE_LEDGER_TARGETS, byteLedgerBench } from './byte-ledger.js';
import { benchSuites } from './index.js';
import { checkTargets } from './targets.js';

const newDir = tempDirs('byte-ledger');

function ledgerOf(results: Results, setting: string) {
  const prefix = `byteLedger.always.${setting}.`;
  const perMsg = results.metrics.filter(
    (metric) => metric.name.startsWith(prefix) && metric.name.endsWith('.deviceBytesPerMsg'),
  );
  const total = perMsg.find((metric) => metric.labels?.['cause'] === 'total');
  return { rows: perMsg.filter((metric) => metric !== total), total };
}

describe('loglab bench byte-ledger', () => {
  let results: Results;

  it('runs both settings on a tiny budget and is registered with its targets', async () => {
    results = await runTiny(byteLedgerBench, {
      dir: newDir(),
      drops: 'off',
      params: {
        rounds: 2,
        roundSeconds: 0.1,
        segmentBytes: 64 * 1024,
        retentionEveryMessages: 16,
        idleSeconds: 0.01,
      },
    });
    const suite = benchSuites.find((candidate) => candidate.name === 'byte-ledger');
    expect(suite?.experiment).toBe(byteLedgerBench);
    expect(suite?.targets).toBe(BYTE_LEDGER_TARGETS);
    const names = results.metrics.map((metric) => metric.name);
    expect(names).toContain('byteLedger.always.retention.ratePerSec');
    if (results.notes.some((note) => /not on a block device|No device counters/.test(note))) {
      return;
    }
    for (const check of checkTargets(results, BYTE_LEDGER_TARGETS)) {
      expect(check.value, check.target.metric).not.toBeNull();
    }
  });

  it('names the cause of every row, the untraced rest as metadata', () => {
    for (const setting of ['noRetention', 'retention']) {
      const { rows, total } = ledgerOf(results, setting);
      if (total === undefined) return; // no device counters here
      const causes = rows.map((row) => row.labels?.['cause']);
      expect(causes).toEqual(expect.arrayContaining(['recordPage', 'preallocation', 'metadata']));
      for (const row of rows) {
        const cause = row.labels?.['cause'] as keyof typeof CAUSE_TITLES;
        expect(CAUSE_TITLES[cause], row.name).toBeDefined();
        expect(row.description, row.name).toContain(CAUSE_TITLES[cause]);
        expect(row).toMatchObject({ unit: 'B/msg', class: 'measurement', direction: 'lower' });
      }
    }
  });

  it("adds each round's rows up to the device total it measured", () => {
    for (const setting of ['noRetention', 'retention']) {
      const { rows, total } = ledgerOf(results, setting);
      if (total === undefined) return;
      total.samples!.forEach((deviceBytesPerMsg, round) => {
        const sum = rows.reduce((bytes, row) => bytes + row.samples![round]!, 0);
        expect(sum).toBeCloseTo(deviceBytesPerMsg, 6);
      });
    }
  });

  it("puts each round's log total above the plain loop's of the same round", () => {
    const plain = results.metrics.find(
      (metric) => metric.name === 'byteLedger.always.plainLoop.deviceBytesPerMsg',
    );
    for (const setting of ['noRetention', 'retention']) {
      const { total } = ledgerOf(results, setting);
      if (total === undefined) return;
      const above = results.metrics.find(
        (metric) => metric.name === `byteLedger.always.${setting}.abovePlainLoopBytesPerMsg`,
      );
      expect(above?.samples).toEqual(
        total.samples!.map((bytes, round) => bytes - plain!.samples![round]!),
      );
    }
  });

  it("gives each round's total over the floor that the figure above the floor was taken from", () => {
    for (const setting of ['noRetention', 'retention', 'direct.noRetention', 'direct.retention']) {
      const { total } = ledgerOf(results, setting);
      if (total === undefined) continue; // no device counters, or no direct writes, here
      const metric = (name: string) =>
        results.metrics.find(
          (candidate) => candidate.name === `byteLedger.always.${setting}.${name}`,
        );
      const above = metric('aboveFloorBytesPerMsg')!.samples!;
      const floors = total.samples!.map((bytes, round) => bytes - above[round]!);
      // One floor a setting, the same in every round, and named in the figure's description.
      expect(new Set(floors.map((floor) => Math.round(floor))).size).toBe(1);
      const vsFloor = metric('vsFloor')!;
      expect(vsFloor).toMatchObject({ unit: 'ratio', class: 'measurement', direction: 'lower' });
      vsFloor.samples!.forEach((ratio, round) =>
        expect(ratio).toBeCloseTo(total.samples![round]! / floors[round]!, 9),
      );
      expect(vsFloor.description).toContain(
        `floor of ${Math.round(floors[0]!).toLocaleString('en-US')} B`,
      );
    }
  });

  it("adds the file system's bytes a second, over the setting's rate, to the targets' floor", () => {
    const fs = results.metrics.find(
      (metric) => metric.name === 'byteLedger.always.plainLoop.fsBytesPerSec',
    );
    for (const setting of ['noRetention', 'retention', 'direct.noRetention', 'direct.retention']) {
      const { total } = ledgerOf(results, setting);
      if (total === undefined) continue;
      const metric = (name: string) =>
        results.metrics.find(
          (candidate) => candidate.name === `byteLedger.always.${setting}.${name}`,
        )!;
      const above = metric('aboveFloorBytesPerMsg').samples!;
      const rates = metric('ratePerSec').samples!;
      metric('vsFsFloor').samples!.forEach((ratio, round) => {
        const floor = total.samples![round]! - above[round]!;
        const fsFloor = floor + fs!.samples![round]! / rates[round]!;
        expect(ratio).toBeCloseTo(total.samples![round]! / fsFloor, 9);
      });
    }
  });

  it('says in its notes what every row of the pooled ledger holds', () => {
    for (const setting of ['noRetention', 'retention']) {
      const pooled = results.notes.find((note) => note.startsWith(`${setting}, all rounds`));
      if (ledgerOf(results, setting).total === undefined) return;
      expect(pooled).toContain(CAUSE_TITLES.metadata);
      expect(pooled).toContain(CAUSE_TITLES.recordPage);
    }
  });
});
