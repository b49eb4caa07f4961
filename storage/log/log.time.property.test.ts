/**
 * Property: lookups by time and by offset agree with a sorted list of (offset, time) for every
 * configuration the log accepts: segments of any size against index intervals of 0 (dense),
 * below, equal to and above the segment size (refused), clocks that repeat and step back, rolls,
 * retention and reopens.
 *
 * The log's records carry no time (the course, lesson 2): it reads its clock for the first record
 * of each segment and for each record that gets an offset-index entry (every record when dense).
 * A record's time is the largest time read in its segment up to it, Kafka's "max timestamp so
 * far"; `offsetForTime(t)` is the first record whose time is at or after `t`, the end when none
 * is (docs/storage.md). The model applies that rule to the times the test's clock gave.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookupConfigArb, runAgainstModel } from '../../test/fixtures/lookup-model.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log } from './log.js';
import type { LogOptions } from './log-config.js';

type Op =
  | { kind: 'append'; bytes: number; stepMs: number }
  | { kind: 'batch'; sizes: number[]; stepMs: number }
  | { kind: 'reopen' }
  | { kind: 'retain'; fraction: number }
  | { kind: 'byTime'; fraction: number }
  | { kind: 'read'; fraction: number };

/** Clock steps: repeats and steps back as often as steps forward, some of a fraction of a ms. */
const stepMs = fc.oneof(
  fc.constant(0),
  fc.integer({ min: -40, max: 40 }),
  fc.integer({ min: -40, max: 40 }).map((ms) => ms + 0.5),
);
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      bytes: fc.integer({ min: 0, max: 300 }),
      stepMs,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      sizes: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 12 }),
      stepMs,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retain' as const), fraction }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('byTime' as const), fraction }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), fraction }) },
);

interface ModelRecord {
  readonly body: Buffer;
  /** The clock when it was appended. */
  readonly appendMs: number;
  readonly segmentBaseOffset: number;
  readonly positionBytes: number;
}

/**
 * Each record's time as the log knows it: the first record of a segment and each record more
 * than `intervalBytes` past the last one sampled (every record when 0) have their clock read; a
 * record's time is the largest whole ms read in its segment up to it.
 */
function knownTimesMs(records: readonly ModelRecord[], intervalBytes: number): number[] {
  let segment = -1;
  let sampledAt = 0;
  let maxMs = -Infinity;
  return records.map((record) => {
    const first = record.segmentBaseOffset !== segment;
    if (first) [segment, maxMs] = [record.segmentBaseOffset, -Infinity];
    if (first || intervalBytes === 0 || record.positionBytes - sampledAt > intervalBytes) {
      sampledAt = record.positionBytes;
      maxMs = Math.max(maxMs, Math.floor(record.appendMs));
    }
    return maxMs;
  });
}

const newDir = tempDirs('time-prop');

class Harness {
  readonly dir = newDir();
  readonly options: LogOptions;
  readonly clock = { ms: 1_000_000 };
  log: Log;
  start = 0;
  /** The records from `start` on, in offset order. */
  records: ModelRecord[] = [];

  constructor(options: LogOptions) {
    this.options = { ...options, nowMs: () => this.clock.ms };
    this.log = Log.open(this.dir, this.options);
  }

  get end(): number {
    return this.start + this.records.length;
  }

  async apply(op: Op): Promise<void> {
    switch (op.kind) {
      case 'append':
        this.clock.ms += op.stepMs;
        return this.#remember(this.log.appendNoWait(this.#body(op.bytes, this.end)), 1);
      case 'batch': {
        this.clock.ms += op.stepMs;
        const bodies = op.sizes.map((bytes, i) => this.#body(bytes, this.end + i));
        return this.#remember(this.log.appendBatchNoWait(bodies), bodies.length);
      }
      case 'reopen':
        return this.reopen();
      case 'retain': {
        this.log.deleteSegmentsBelow(this.start + Math.floor(op.fraction * this.records.length));
        this.records = this.records.slice(this.log.startOffset - this.start);
        this.start = this.log.startOffset;
        return;
      }
      case 'byTime':
        return this.#checkTime(this.#timeAt(op.fraction));
      case 'read':
        if (this.records.length === 0) return;
        return this.#checkRead(this.start + Math.floor(op.fraction * (this.records.length - 1)));
    }
  }

  async reopen(): Promise<void> {
    await this.log.close();
    this.log = Log.open(this.dir, this.options);
  }

  #body(bytes: number, offset: number): Buffer {
    return Buffer.alloc(bytes, offset % 251);
  }

  /** Reads each new record back (under `group` that writes it, at the same clock). */
  #remember(first: number, count: number): void {
    expect(first).toBe(this.end);
    for (let offset = first; offset < first + count; offset++) {
      const read = this.log.read(offset);
      this.records.push({
        body: read.body,
        appendMs: this.clock.ms,
        segmentBaseOffset: read.segmentBaseOffset,
        positionBytes: read.positionBytes,
      });
    }
  }

  /** A time around the records' own: before, among (and between) and after them. */
  #timeAt(at: number): number {
    const times = this.records.map((record) => Math.floor(record.appendMs));
    const [lowMs, highMs] = [Math.min(...times, this.clock.ms), Math.max(...times, this.clock.ms)];
    return Math.floor(lowMs - 5 + at * (highMs - lowMs + 10));
  }

  /** Every time that tells two answers apart: each record's, a ms either side, and far out. */
  targetsMs(): number[] {
    const times = new Set<number>([0, Number.MAX_SAFE_INTEGER]);
    for (const record of this.records) {
      const ms = Math.floor(record.appendMs);
      for (const target of [ms - 1, ms, ms + 1]) times.add(target);
    }
    return [...times].sort((a, b) => a - b);
  }

  expectedForTime(targetMs: number): number {
    const known = knownTimesMs(this.records, this.log.config.indexIntervalBytes);
    const at = known.findIndex((ms) => ms >= targetMs);
    return at < 0 ? this.end : this.start + at;
  }

  #checkTime(targetMs: number): void {
    expect(this.log.offsetForTime(targetMs), `time ${targetMs}`).toBe(
      this.expectedForTime(targetMs),
    );
  }

  #checkRead(offset: number): void {
    const read = this.log.read(offset);
    const expected = this.records[offset - this.start]!;
    expect(read.body.equals(expected.body), `offset ${offset}`).toBe(true);
    expect([read.segmentBaseOffset, read.positionBytes]).toEqual([
      expected.segmentBaseOffset,
      expected.positionBytes,
    ]);
  }

  /** Every lookup the model can check; returns the answers by time, for a reopen to compare. */
  checkAll(): number[] {
    expect([this.log.startOffset, this.log.endOffset]).toEqual([this.start, this.end]);
    for (let offset = this.start; offset < this.end; offset++) this.#checkRead(offset);
    if (this.records.length > 0) {
      const reader = this.log.reader(this.start);
      for (const record of this.records) expect(reader.next()?.body.equals(record.body)).toBe(true);
      expect(reader.next()).toBeNull();
    }
    const answers = this.targetsMs().map((targetMs) => this.log.offsetForTime(targetMs));
    expect(answers).toEqual(this.targetsMs().map((targetMs) => this.expectedForTime(targetMs)));
    return answers;
  }
}

describe('lookups by time and by offset against a sorted list of (offset, time)', () => {
  it('agree for every segment size, index interval, clock, roll, retention and reopen', async () => {
    await fc.assert(
      fc.asyncProperty(
        lookupConfigArb([16, 100, 700]),
        fc.array(opArb, { maxLength: 50 }),
        async (config, ops) => {
          const { segmentBytes, indexIntervalBytes, durability } = config;
          const options = { segmentBytes, indexIntervalBytes, durability };
          const open = () => Log.open(newDir(), options);
          await runAgainstModel(config, open, () => new Harness(options), ops);
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe('lookups by time at the edges', () => {
  it('a log of one record answers it for any time up to its own, and the end after it', async () => {
    // The default interval (4 KiB): the one record gets no offset-index entry, only its time.
    let nowMs = 5_000;
    const dir = newDir();
    const open = () => Log.open(dir, { durability: 'none', nowMs: () => nowMs });
    const log = open();
    log.appendNoWait(Buffer.from('only'));
    const answers = () => [0, 4_999, 5_000, 5_001].map((t) => log.offsetForTime(t));
    expect(answers()).toEqual([0, 0, 0, 1]);
    await log.close();
    nowMs = 9_000;
    const reopened = open();
    expect([0, 4_999, 5_000, 5_001].map((t) => reopened.offsetForTime(t))).toEqual([0, 0, 0, 1]);
    await reopened.close();
  });

  it('after retention removed the segments with the earliest times, answers from what is left', async () => {
    let nowMs = 0;
    const log = Log.open(newDir(), {
      durability: 'none',
      segmentBytes: 1024,
      indexIntervalBytes: 1024,
      nowMs: () => nowMs,
    });
    // Four 216-byte records fill a segment; the clock steps back between the first two segments,
    // so the second holds the earliest times.
    for (const segmentMs of [5_000, 1_000, 3_000]) {
      nowMs = segmentMs;
      for (let i = 0; i < 4; i++) log.appendNoWait(Buffer.alloc(200));
    }
    expect(log.segments().map((segment) => segment.baseOffset)).toEqual([0, 4, 8]);
    expect([0, 2_000, 5_000, 5_001].map((t) => log.offsetForTime(t))).toEqual([0, 0, 0, 12]);
    log.deleteSegmentsBelow(8);
    expect(log.startOffset).toBe(8);
    expect([0, 1_000, 3_000, 3_001].map((t) => log.offsetForTime(t))).toEqual([8, 8, 8, 12]);
    await log.close();
  });
});
