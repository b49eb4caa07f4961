/**
 * Property: under random batches (sizes, codecs, timestamps), rolls, reopens and torn tails,
 * the batched log behaves like an array of records. Every record a torn tail did not cut reads
 * back by offset, in order and by time exactly as the array says.
 */
import { truncateSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { isStorageError } from './errors.js';
import type { KafkaCompression } from './kafka-batch.js';
import { BatchedLog } from './batched-log.js';
import type { BatchedLogOptions } from './batched-log-config.js';
import type { BatchLocation } from './batched-log-records.js';

type Op =
  | { kind: 'append'; count: number; valueBytes: number; codec: KafkaCompression; jitterMs: number }
  | { kind: 'reopen' }
  | { kind: 'tornTail'; fraction: number }
  | { kind: 'read'; fraction: number }
  | { kind: 'byTime'; fraction: number };

const CODECS: readonly KafkaCompression[] = ['none', 'gzip', 'lz4', 'snappy'];
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      count: fc.integer({ min: 1, max: 12 }),
      valueBytes: fc.integer({ min: 0, max: 150 }),
      codec: fc.constantFrom(...CODECS),
      jitterMs: fc.integer({ min: 0, max: 30 }),
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

  constructor(options: BatchedLogOptions) {
    this.options = options;
    this.log = BatchedLog.open(this.dir, options);
  }

  async apply(op: Op): Promise<void> {
    if (op.kind === 'append') return this.#append(op);
    if (op.kind === 'reopen') return this.#reopen();
    if (op.kind === 'tornTail') return this.#tear(op.fraction);
    if (this.records.length === 0) return;
    const offset = Math.min(this.records.length - 1, Math.floor(op.fraction * this.records.length));
    if (op.kind === 'read') this.#checkRead(offset);
    else this.#checkByTime(op.fraction);
  }

  async #append(op: Extract<Op, { kind: 'append' }>): Promise<void> {
    const first = this.records.length;
    const added = Array.from({ length: op.count }, (_, i) => ({
      value: Buffer.alloc(op.valueBytes, (first + i) % 251),
      timestampMs: 10_000 + (first + i) * 10 - ((op.jitterMs * (i + 1)) % 31),
    }));
    let placed: BatchLocation;
    try {
      placed = await this.log.appendBatch(added, { compression: op.codec });
    } catch (error) {
      // A batch over maxBatchBytes (the segment size here) is refused and changes nothing.
      expect(isStorageError(error, 'RECORD_TOO_LARGE')).toBe(true);
      expect(this.log.endOffset).toBe(first);
      return;
    }
    expect([placed.baseOffset, placed.lastOffset]).toEqual([first, first + op.count - 1]);
    this.records.push(...added);
    this.batches.push(placed);
  }

  async #reopen(): Promise<void> {
    await this.log.close();
    this.log = BatchedLog.open(this.dir, this.options);
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

  #checkByTime(at: number): void {
    const times = this.records.map((r) => r.timestampMs);
    const [lowMs, highMs] = [Math.min(...times), Math.max(...times)];
    const targetMs = lowMs - 5 + Math.floor(at * (highMs - lowMs + 10));
    const expected = times.findIndex((t) => t >= targetMs);
    const found = this.log.lookupByTime(targetMs);
    expect(found === null ? -1 : found.offset, `time ${targetMs}`).toBe(expected);
  }

  checkWhole(): void {
    expect(this.log.endOffset).toBe(this.records.length);
    const all = [...this.log.records()];
    expect(all.length).toBe(this.records.length);
    all.forEach((record, offset) => {
      expect(record.offset).toBe(offset);
      expect(Buffer.from(record.value!).equals(this.records[offset]!.value)).toBe(true);
    });
  }
}

describe('BatchedLog against an array of records', () => {
  it('agrees after any sequence of batches, reopens, torn tails, reads and time lookups', async () => {
    const optionsArb = fc.record({
      segmentBytes: fc.constantFrom(1024, 2048, 8192),
      indexIntervalBytes: fc.constantFrom(0, 64, 512),
    });
    const opsArb = fc.array(opArb, { minLength: 1, maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(optionsArb, opsArb, async (options, ops) => {
        const harness = new Harness(options);
        try {
          for (const op of ops) {
            await harness.apply(op);
            harness.log.checkInvariants();
          }
          harness.checkWhole();
        } finally {
          await harness.log.close();
        }
      }),
      { numRuns: 60, seed: 16 },
    );
  });
});
