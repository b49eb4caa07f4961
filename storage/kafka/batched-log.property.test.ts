/**
 * Property: under random batches (sizes, codecs, timestamps that repeat and step back within a
 * batch and between batches), rolls, reopens and torn tails, with segments of 1-4 KiB and index
 * intervals of 0, below, equal to and above the segment size (refused), the batched log behaves
 * like an array of records. Every record a torn tail did not cut reads back by offset, in order
 * and by time exactly as the array says, and again after a reopen.
 *
 * Its records carry their timestamps (Kafka's format), so a lookup by time is Kafka's ListOffsets
 * answer exactly: the first record in offset order whose timestamp is at or after the time, null
 * when none is (the time index holds each segment's largest timestamp so far, Kafka's
 * maxTimestampSoFar; it only shortens the walk).
 */
import { truncateSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookupConfigArb, runAgainstModel } from '../../test/fixtures/lookup-model.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { isStorageError } from '../errors.js';
import type { KafkaCompression } from './kafka-batch.js';
import { BatchedLog } from './batched-log.js';
import type { BatchedLogOptions } from './batched-log-config.js';
import type { BatchLocation } from './batched-log-records.js';

type Op =
  | { kind: 'append'; stepsMs: number[]; valueBytes: number; codec: KafkaCompression }
  | { kind: 'reopen' }
  | { kind: 'tornTail'; fraction: number }
  | { kind: 'read'; fraction: number }
  | { kind: 'byTime'; fraction: number };

const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'lz4', 'snappy'];
/** Each record's step from the one before: repeats and steps back as often as steps forward. */
const stepMs = fc.oneof(fc.constant(0), fc.integer({ min: -60, max: 60 }));
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      stepsMs: fc.array(stepMs, { minLength: 1, maxLength: 12 }),
      valueBytes: fc.integer({ min: 0, max: 150 }),
      codec: fc.constantFrom(...CODECS),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tornTail' as const), fraction }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), fraction }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('byTime' as const), fraction }) },
);

interface ModelRecord {
  readonly value: Buffer;
  readonly timestampMs: number;
}

const newDir = tempDirs('batched-prop');

class Harness {
  readonly dir = newDir();
  readonly options: BatchedLogOptions;
  log: BatchedLog;
  readonly records: ModelRecord[] = [];
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
    if (op.kind === 'byTime') return this.#checkByTime(this.#timeAt(op.fraction));
    if (this.records.length === 0) return;
    this.#checkRead(Math.floor(op.fraction * (this.records.length - 1)));
  }

  async reopen(): Promise<void> {
    await this.log.close();
    this.log = BatchedLog.open(this.dir, this.options);
  }

  async #append(op: Extract<Op, { kind: 'append' }>): Promise<void> {
    const first = this.records.length;
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
    this.records.push(...added);
    this.batches.push(placed);
  }

  /** Closes, cuts the active segment's file at a fraction of it, reopens: whole batches stay. */
  async #tear(at: number): Promise<void> {
    const active = this.log.segments().at(-1)!;
    await this.log.close();
    const cutBytes = Math.floor(at * active.sizeBytes);
    truncateSync(active.logPath, cutBytes);
    while (this.batches.length > 0) {
      const last = this.batches.at(-1)!;
      const survives =
        last.segmentBaseOffset !== active.baseOffset ||
        last.positionBytes + last.sizeBytes <= cutBytes;
      if (survives) break;
      this.batches.pop();
      this.records.length = last.baseOffset;
    }
    this.log = BatchedLog.open(this.dir, this.options);
  }

  #checkRead(offset: number): void {
    const record = this.log.read(offset);
    const expected = this.records[offset]!;
    expect(Buffer.from(record.value!).equals(expected.value), `offset ${offset}`).toBe(true);
    expect(record.timestampMs).toBe(expected.timestampMs);
  }

  #timeAt(at: number): number {
    const times = this.records.map((record) => record.timestampMs);
    const [lowMs, highMs] = [Math.min(...times, this.#clockMs), Math.max(...times, this.#clockMs)];
    return Math.floor(lowMs - 5 + at * (highMs - lowMs + 10));
  }

  #expectedForTime(targetMs: number): number | null {
    const at = this.records.findIndex((record) => record.timestampMs >= targetMs);
    return at < 0 ? null : at;
  }

  #answerForTime(targetMs: number): number | null {
    return this.log.lookupByTime(targetMs)?.offset ?? null;
  }

  #checkByTime(targetMs: number): void {
    const expected = this.#expectedForTime(targetMs);
    expect(this.#answerForTime(targetMs), `time ${targetMs}`).toBe(expected);
  }

  /** Every time that tells two answers apart: each record's, a ms either side, and far out. */
  #targetsMs(): number[] {
    const times = new Set<number>([-1, Number.MAX_SAFE_INTEGER]);
    for (const { timestampMs: ms } of this.records)
      for (const t of [ms - 1, ms, ms + 1]) times.add(t);
    return [...times].sort((a, b) => a - b);
  }

  /** Every read the model can check; returns the answers by time, for a reopen to compare. */
  checkAll(): (number | null)[] {
    expect(this.log.endOffset).toBe(this.records.length);
    for (let offset = 0; offset < this.records.length; offset++) this.#checkRead(offset);
    const all = [...this.log.records()];
    expect(all.length).toBe(this.records.length);
    all.forEach((record, offset) => {
      expect(record.offset).toBe(offset);
      expect(Buffer.from(record.value!).equals(this.records[offset]!.value)).toBe(true);
    });
    const targets = this.#targetsMs();
    const answers = targets.map((targetMs) => this.#answerForTime(targetMs));
    expect(answers).toEqual(targets.map((targetMs) => this.#expectedForTime(targetMs)));
    return answers;
  }
}

describe('BatchedLog against an array of records', () => {
  it('agrees after any sequence of batches, reopens, torn tails, reads and time lookups', async () => {
    await fc.assert(
      fc.asyncProperty(
        lookupConfigArb([64, 300, 900]),
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        async (config, ops) => {
          const { segmentBytes, indexIntervalBytes, durability } = config;
          const options = { segmentBytes, indexIntervalBytes, durability };
          const open = () => BatchedLog.open(newDir(), options);
          await runAgainstModel(config, open, () => new Harness(options), ops);
        },
      ),
      { numRuns: 60, seed: 16 },
    );
  });
});
