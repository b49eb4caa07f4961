/**
 * Property: the batched log's lookups by time and by offset agree with a sorted list of
 * (offset, timestamp) for every configuration it accepts: segments of any size against index
 * intervals of 0, below, equal to and above the segment size (refused), timestamps that repeat
 * and step back within a batch and between batches, rolls, torn tails and reopens.
 *
 * Its records carry their timestamps (Kafka's format), so the answer is Kafka's ListOffsets one
 * exactly: the first record in offset order whose timestamp is at or after the time, null when
 * none is. (The time index holds each segment's largest timestamp so far, Kafka's
 * maxTimestampSoFar; it only shortens the walk.)
 */
import { truncateSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { isStorageError } from './errors.js';
import { BatchedLog } from './batched-log.js';
import type { BatchedLogOptions } from './batched-log-config.js';
import type { BatchLocation } from './batched-log-records.js';
import type { KafkaCompression } from './kafka-batch.js';

type Op =
  | { kind: 'append'; stepsMs: number[]; valueBytes: number; codec: KafkaCompression }
  | { kind: 'reopen' }
  | { kind: 'tornTail'; fraction: number }
  | { kind: 'byTime'; fraction: number }
  | { kind: 'read'; fraction: number };

const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'lz4'];
/** Each record's step from the one before: repeats and steps back as often as steps forward. */
const stepMs = fc.oneof(fc.constant(0), fc.integer({ min: -60, max: 60 }));
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      stepsMs: fc.array(stepMs, { minLength: 1, maxLength: 10 }),
      valueBytes: fc.integer({ min: 0, max: 150 }),
      codec: fc.constantFrom(...CODECS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tornTail' as const), fraction }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('byTime' as const), fraction }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read' as const), fraction }) },
);

const newDir = tempDirs('batched-time-prop');

class Harness {
  readonly dir = newDir();
  readonly options: BatchedLogOptions;
  log: BatchedLog;
  /** Each record's timestamp, by offset (the log starts at 0 and has no retention). */
  readonly timesMs: number[] = [];
  readonly batches: BatchLocation[] = [];
  #clockMs = 1_000_000;

  constructor(options: BatchedLogOptions) {
    this.options = options;
    this.log = BatchedLog.open(this.dir, options);
  }

  async apply(op: Op): Promise<void> {
    if (op.kind === 'append') return this.#append(op);
    if (op.kind === 'reopen') return this.reopen();
    if (op.kind === 'tornTail') return this.#tear(op.fraction);
    if (op.kind === 'byTime') return this.#checkTime(this.#timeAt(op.fraction));
    if (this.timesMs.length === 0) return;
    this.#checkRead(Math.floor(op.fraction * (this.timesMs.length - 1)));
  }

  async reopen(): Promise<void> {
    await this.log.close();
    this.log = BatchedLog.open(this.dir, this.options);
  }

  async #append(op: Extract<Op, { kind: 'append' }>): Promise<void> {
    const first = this.timesMs.length;
    const added = op.stepsMs.map((step, i) => {
      this.#clockMs += step;
      return { value: Buffer.alloc(op.valueBytes, (first + i) % 251), timestampMs: this.#clockMs };
    });
    let placed: BatchLocation;
    try {
      placed = await this.log.appendBatch(added, { compression: op.codec });
    } catch (error) {
      // A batch over maxBatchBytes (the segment size here) is refused and changes nothing.
      expect(isStorageError(error, 'RECORD_TOO_LARGE')).toBe(true);
      expect(this.log.endOffset).toBe(first);
      return;
    }
    expect([placed.baseOffset, placed.lastOffset]).toEqual([first, first + added.length - 1]);
    this.timesMs.push(...added.map((record) => record.timestampMs));
    this.batches.push(placed);
  }

  /** Closes, cuts the active segment's file at a fraction of it, reopens: whole batches stay. */
  async #tear(at: number): Promise<void> {
    const active = this.log.segments().at(-1)!;
    await this.log.close();
    const cutBytes = Math.floor(at * active.sizeBytes);
    truncateSync(active.logPath, cutBytes);
    for (let last = this.batches.at(-1); last !== undefined; last = this.batches.at(-1)) {
      const cut =
        last.segmentBaseOffset === active.baseOffset &&
        last.positionBytes + last.sizeBytes > cutBytes;
      if (!cut) break;
      this.batches.pop();
      this.timesMs.length = last.baseOffset;
    }
    this.log = BatchedLog.open(this.dir, this.options);
  }

  #timeAt(at: number): number {
    const times = this.timesMs.length > 0 ? this.timesMs : [this.#clockMs];
    const [lowMs, highMs] = [Math.min(...times), Math.max(...times)];
    return Math.floor(lowMs - 5 + at * (highMs - lowMs + 10));
  }

  /** Every time that tells two answers apart: each record's, a ms either side, and far out. */
  targetsMs(): number[] {
    const times = new Set<number>([-1, Number.MAX_SAFE_INTEGER]);
    for (const ms of this.timesMs) for (const target of [ms - 1, ms, ms + 1]) times.add(target);
    return [...times].sort((a, b) => a - b);
  }

  expectedForTime(targetMs: number): number | null {
    const at = this.timesMs.findIndex((ms) => ms >= targetMs);
    return at < 0 ? null : at;
  }

  answerForTime(targetMs: number): number | null {
    return this.log.lookupByTime(targetMs)?.offset ?? null;
  }

  #checkTime(targetMs: number): void {
    const expected = this.expectedForTime(targetMs);
    expect(this.answerForTime(targetMs), `time ${targetMs}`).toBe(expected);
  }

  #checkRead(offset: number): void {
    const record = this.log.read(offset);
    expect(record.offset).toBe(offset);
    expect(record.timestampMs, `offset ${offset}`).toBe(this.timesMs[offset]);
  }

  /** Every lookup the model can check; returns the answers by time, for a reopen to compare. */
  checkAll(): (number | null)[] {
    expect(this.log.endOffset).toBe(this.timesMs.length);
    for (let offset = 0; offset < this.timesMs.length; offset++) this.#checkRead(offset);
    expect([...this.log.records()].map((record) => record.timestampMs)).toEqual(this.timesMs);
    const targets = this.targetsMs();
    const answers = targets.map((targetMs) => this.answerForTime(targetMs));
    expect(answers).toEqual(targets.map((targetMs) => this.expectedForTime(targetMs)));
    return answers;
  }
}

type IntervalKind = 'dense' | 'below' | 'equal' | 'above';

function intervalFor(kind: IntervalKind, belowBytes: number, segmentBytes: number): number {
  if (kind === 'dense') return 0;
  if (kind === 'below') return Math.min(belowBytes, segmentBytes - 1);
  return kind === 'equal' ? segmentBytes : segmentBytes + 1;
}

describe('the batched log by time and by offset against a sorted list of (offset, timestamp)', () => {
  it('agrees for every segment size, index interval, timestamps, roll, torn tail and reopen', async () => {
    const configArb = fc.record({
      segmentBytes: fc.constantFrom(1024, 2048, 4096),
      intervalKind: fc.constantFrom<IntervalKind>('dense', 'below', 'equal', 'above'),
      belowBytes: fc.constantFrom(64, 300, 900),
      durability: fc.constantFrom('none' as const, 'group' as const),
    });
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { maxLength: 40 }), async (config, ops) => {
        const { segmentBytes, intervalKind, belowBytes, durability } = config;
        const indexIntervalBytes = intervalFor(intervalKind, belowBytes, segmentBytes);
        const options = { segmentBytes, indexIntervalBytes, durability };
        if (intervalKind === 'above') {
          // Kafka takes an interval above the segment size; this log refuses it when opened.
          let refused: unknown = null;
          try {
            BatchedLog.open(newDir(), options);
          } catch (error) {
            refused = error;
          }
          expect(isStorageError(refused, 'INVALID_CONFIG')).toBe(true);
          return;
        }
        const harness = new Harness(options);
        try {
          for (const op of ops) {
            await harness.apply(op);
            harness.log.checkInvariants();
          }
          const before = harness.checkAll();
          await harness.reopen();
          expect(harness.checkAll()).toEqual(before);
        } finally {
          await harness.log.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
