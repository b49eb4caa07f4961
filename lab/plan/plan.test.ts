import { describe, expect, it } from 'vitest';
import { runMain } from '../../test/fixtures/main-in-process.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log } from '../../storage/log/log.js';
import { RECORD_HEADER_BYTES } from '../../storage/record/record.js';
import { formatAboutDuration } from '../format.js';
import { EXOS_X20 } from '../models/models.js';
import { modelCosts } from './plan-costs.js';
import { binarySearchComparisonsMax, type PlanInput, planFigures, PLAN_DEFAULTS } from './plan.js';
import { MiB } from '../../storage/units.js';

const COURSE: PlanInput = {
  ratePerSec: 5,
  recordBytes: 1024,
  ...PLAN_DEFAULTS,
  retentionSeconds: null,
  consumerLagSeconds: 30,
  lookupPositionBytes: null,
};
const newDir = tempDirs('plan');

describe('plan arithmetic', () => {
  it("lasts the course's times for 4 MiB, 64 MiB, 100 MiB and 1 GiB segments", () => {
    const figures = planFigures(COURSE);
    expect(figures.bytesPerSec).toBe(5120);
    expect(figures.segment).toMatchObject({ messages: 65_536 });
    expect(Math.round(figures.segment.seconds)).toBe(13_107);
    const lives = figures.references.map((reference) => [
      Math.round(reference.seconds),
      formatAboutDuration(reference.seconds, 'hour'),
    ]);
    expect(lives).toEqual([
      [819, 'about 14 minutes'],
      [13_107, 'about 3.6 hours'],
      [20_480, 'about 5.7 hours'],
      [209_715, 'about 58 hours'],
    ]);
  });

  it("sizes the course's sparse and dense indexes for 53-byte records in 64 MiB", () => {
    const index = planFigures({ ...COURSE, recordBytes: 53 }).index;
    expect(index).toMatchObject({ sparseEntries: 16_384, sparseBytes: 131_072 });
    expect(index).toMatchObject({ denseEntries: 1_266_205, denseBytes: 10_129_640 });
  });

  it("bounds Asha's lookup at 13 comparisons and a segment's end at 15", () => {
    const asha = planFigures({ ...COURSE, lookupPositionBytes: 23_959_523 }).index;
    expect(asha).toMatchObject({ entriesBeforeLookup: 5_849, comparisonsMax: 13 });
    expect(asha.stepForwardMaxBytes).toBe(5_120);
    expect(planFigures(COURSE).index.comparisonsMax).toBe(15);
    const entries = [0, 1, 2, 3, 4, 8191, 8192];
    expect(entries.map(binarySearchComparisonsMax)).toEqual([0, 1, 2, 2, 3, 13, 14]);
  });

  it('holds 2.4 days of traffic in a GiB of page cache and serves a 30 s lag from memory', () => {
    const { pageCache } = planFigures(COURSE);
    expect(Math.round(pageCache.seconds)).toBe(209_715);
    expect(formatAboutDuration(pageCache.seconds)).toBe('about 2.4 days');
    expect(pageCache.lag).toEqual({ seconds: 30, bytes: 153_600, fromMemory: true });
    const behind = planFigures({ ...COURSE, consumerLagSeconds: 3 * 86_400 }).pageCache.lag;
    expect(behind?.fromMemory).toBe(false);
  });

  it('keeps whole segments for the retention, one more than the bytes need', () => {
    const retention = planFigures({ ...COURSE, retentionSeconds: 3 * 86_400 }).retention;
    expect(retention).toMatchObject({ bytes: 1_327_104_000, segments: 21, files: 63 });
    expect(retention?.diskBytes).toBe(21 * 64 * MiB);
  });

  it("prices a scan to Asha's record at the course's 84 ms from the datasheet", () => {
    const costs = modelCosts(EXOS_X20, 5_120);
    expect((23_959_523 / costs.scanBytesPerSec.value) * 1000).toBeCloseTo(84.07, 2);
    expect(costs.coldLookupNs.value / 1e6).toBeCloseTo(10.02, 2);
  });

  it.each([
    [{ segmentBytes: 4 * 1024 ** 3 }, /--segment: 4 GiB breaks the 4 GiB position limit/],
    [{ recordBytes: 15 }, /--size: a record is at least its 16-byte header/],
    [{ recordBytes: 2 * MiB, segmentBytes: MiB }, /--size: a 2 MiB record does not fit in a 1 MiB/],
    [{ indexIntervalBytes: 2 * MiB, segmentBytes: MiB }, /--index-interval: 2 MiB is larger than/],
    [{ lookupPositionBytes: 65 * MiB }, /--lookup-position: .* past the end/],
  ])('refuses %j, naming the limit', (change, message) => {
    expect(() => planFigures({ ...COURSE, ...change })).toThrow(message);
  });

  it('holds what a real log under always holds once page alignment leaves gaps', async () => {
    const input = { ...COURSE, recordBytes: 1040, segmentBytes: 64 * 1024 + 3000 };
    const { segment, alignedSegment } = planFigures(input);
    expect(segment.messages).toBe(66);
    expect(alignedSegment).toMatchObject({ messages: 16 * 3 + 2, recordSegmentBytes: 4096 / 3 });
    expect(planFigures(COURSE).alignedSegment).toBeNull();
    const log = Log.open(newDir(), { segmentBytes: input.segmentBytes, durability: 'always' });
    try {
      const body = Buffer.alloc(input.recordBytes - RECORD_HEADER_BYTES);
      for (let i = 0; i <= alignedSegment!.messages; i++) await log.append(body);
      expect(log.segments()[1]!.baseOffset).toBe(alignedSegment!.messages);
    } finally {
      await log.close();
    }
  });

  it("holds for a real log: entries, comparisons and steps stay within the plan's bounds", () => {
    const input = { ...COURSE, segmentBytes: 256 * 1024, indexIntervalBytes: 4096 };
    const { index, segment } = planFigures(input);
    const log = Log.open(newDir(), { segmentBytes: input.segmentBytes, indexIntervalBytes: 4096 });
    try {
      const body = Buffer.alloc(1024 - RECORD_HEADER_BYTES);
      log.appendBatchNoWait(Array.from({ length: 3 * segment.messages }, () => body));
      const walks = Array.from({ length: log.endOffset }, (_, offset) => log.explainLookup(offset));
      const most = (pick: (walk: (typeof walks)[number]) => number) => Math.max(...walks.map(pick));
      expect(log.segments()[1]!.baseOffset).toBe(segment.messages);
      expect(most((walk) => walk.indexEntries)).toBeLessThanOrEqual(index.sparseEntries);
      expect(most((walk) => walk.comparisons)).toBeLessThanOrEqual(index.comparisonsMax);
      expect(most((walk) => walk.stepForwardBytes)).toBe(index.stepForwardMaxBytes);
    } finally {
      log.close();
    }
  });
});

describe('loglab plan', () => {
  it("prints the course's figures, computed line by line", async () => {
    const run = await runMain([
      'plan',
      '--rate',
      '5/s',
      '--size',
      '1KiB',
      '--consumer-lag',
      '30s',
      '--lookup-position',
      '23959523',
    ]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const expected = [
      /record = 16 B header \+ 1,008 B body/,
      /traffic += 5\/s x 1,024 B += 5,120 B a second/,
      /lasts += 67,108,864 \/ 5,120 += 13,107 s = about 3.6 hours/,
      /4 MiB +4,194,304 \/ 5,120 += 819 s = about 14 minutes/,
      /1 GiB +1,073,741,824 \/ 5,120 += 209,715 s = about 58 hours/,
      /sparse index += 16,384 x 8 B += 131,072 B/,
      /entries so far +<= 23,959,523 \/ 4,096 = about 5,850/,
      /comparisons +<= 13, because 2\^13 = 8,192 is more than 5,850/,
      /scan instead += 23,959,523 B \/ 285 MB\/s += 84.1 ms/,
      /holds += 1,073,741,824 B \/ 5,120 B\/s += 209,715 s = about 2.4 days of traffic/,
      /consumer lag += 30 s x 5,120 B\/s += 153,600 B \(150 KiB\) <= 1 GiB: served from memory/,
    ];
    for (const line of expected) expect(run.stdout).toMatch(line);
  });

  it('prints the figures as JSON', async () => {
    const run = await runMain(['plan', '--rate', '300/min', '--size', '53B', '--json']);
    const parsed = JSON.parse(run.stdout);
    expect(parsed.figures.bytesPerSec).toBe(265);
    expect(parsed.figures.index.denseBytes).toBe(10_129_640);
    expect(parsed.measured).toBeNull();
  });

  it.each([
    [['--rate', 'abc'], /^loglab: BAD_ARGUMENT: --rate: expected a positive rate/],
    [['--rate', '-5/s'], /--rate: expected a positive rate .* got '-5\/s'/],
    [['--size', '1KQ'], /--size: expected a size .* got '1KQ'/],
    [['--retention', '3y'], /--retention: expected a duration .* got '3y'/],
    [['--consumer-lag', '-1s'], /--consumer-lag: expected a duration .* got '-1s'/],
    [['--segment', '8GiB'], /--segment: 8 GiB breaks the 4 GiB position limit/],
    [['--size', '2MiB', '--segment', '1MiB'], /--size: a 2 MiB record does not fit/],
  ])('answers %j with one line and exit code 2', async (args, message) => {
    const run = await runMain(['plan', '--rate', '5/s', '--size', '1KiB', ...args]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it('requires the rate and the record size', async () => {
    const run = await runMain(['plan', '--rate', '5/s']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/required option '--size <size>' not specified/);
  });
});
