/**
 * Property: under random appends, batches, rolls, reopens, torn tails and retention, the log
 * behaves like an array of bodies. Every acknowledged record that was not cut by a torn tail or
 * dropped by retention reads back byte-identical, by lookup and by sequential reading.
 */
import { rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log } from './log.js';
import { RECOVERY_POINT_FILE } from '../segments/segment-files.js';

type Op =
  | { kind: 'append'; bytes: number }
  | { kind: 'batch'; sizes: number[] }
  | { kind: 'reopen' }
  | { kind: 'tornTail'; fraction: number }
  | { kind: 'retain'; fraction: number }
  | { kind: 'read'; fraction: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      bytes: fc.integer({ min: 0, max: 300 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      sizes: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('tornTail' as const),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('retain' as const),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
);

interface ModelRecord {
  readonly body: Buffer;
  readonly segmentBaseOffset: number;
  readonly positionBytes: number;
  readonly sizeBytes: number;
}

const newDir = tempDirs('prop');

class Harness {
  readonly dir = newDir();
  readonly options: { segmentBytes: number; indexIntervalBytes: number };
  log: Log;
  start = 0;
  readonly records = new Map<number, ModelRecord>();
  #counter = 0;

  constructor(options: { segmentBytes: number; indexIntervalBytes: number }) {
    this.options = options;
    this.log = Log.open(this.dir, options);
  }

  get end(): number {
    return this.start + this.records.size;
  }

  body(bytes: number): Buffer {
    this.#counter++;
    return Buffer.alloc(bytes, this.#counter % 256);
  }

  remember(offset: number, body: Buffer): void {
    const read = this.log.read(offset);
    this.records.set(offset, {
      body,
      segmentBaseOffset: read.segmentBaseOffset,
      positionBytes: read.positionBytes,
      sizeBytes: read.sizeBytes,
    });
  }

  apply(op: Op): void {
    switch (op.kind) {
      case 'append': {
        const body = this.body(op.bytes);
        this.remember(this.log.appendNoWait(body), body);
        return;
      }
      case 'batch': {
        const bodies = op.sizes.map((bytes) => this.body(bytes));
        const first = this.log.appendBatchNoWait(bodies);
        bodies.forEach((body, i) => this.remember(first + i, body));
        return;
      }
      case 'reopen':
        this.log.close();
        this.log = Log.open(this.dir, this.options);
        return;
      case 'tornTail':
        this.tornTail(op.fraction);
        return;
      case 'retain': {
        this.log.deleteSegmentsBelow(
          this.start + Math.floor(op.fraction * (this.end - this.start)),
        );
        for (let offset = this.start; offset < this.log.startOffset; offset++)
          this.records.delete(offset);
        this.start = this.log.startOffset;
        return;
      }
      case 'read':
        this.checkOne(op.fraction);
        return;
    }
  }

  /** A crash that loses the recovery point and part of the active segment's tail. */
  tornTail(fraction: number): void {
    const active = this.log.segments().at(-1)!;
    this.log.close();
    const keepBytes = Math.floor(active.sizeBytes * (1 - fraction));
    truncateSync(active.logPath, keepBytes);
    rmSync(join(this.dir, RECOVERY_POINT_FILE), { force: true });
    for (let offset = this.end - 1; offset >= active.baseOffset; offset--) {
      const record = this.records.get(offset)!;
      if (record.positionBytes + record.sizeBytes <= keepBytes) break;
      this.records.delete(offset);
    }
    this.log = Log.open(this.dir, this.options);
    expect(this.log.endOffset).toBe(this.end);
  }

  checkOne(fraction: number): void {
    if (this.records.size === 0) return;
    const offset =
      this.start + Math.min(this.records.size - 1, Math.floor(fraction * this.records.size));
    expect(this.log.read(offset).body.equals(this.records.get(offset)!.body)).toBe(true);
  }

  checkAll(): void {
    expect(this.log.startOffset).toBe(this.start);
    expect(this.log.endOffset).toBe(this.end);
    for (const [offset, record] of this.records)
      expect(this.log.read(offset).body.equals(record.body)).toBe(true);
    if (this.records.size === 0) return;
    const reader = this.log.reader(this.start);
    for (let offset = this.start; offset < this.end; offset++) {
      expect(reader.next()?.body.equals(this.records.get(offset)!.body)).toBe(true);
    }
    expect(reader.next()).toBeNull();
  }
}

describe('the log against an in-memory model', () => {
  it('reads back every acknowledged record byte-identical after any sequence of operations', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 60 }),
        fc.constantFrom(1024, 2048, 8192),
        fc.constantFrom(0, 64, 256, 4096),
        (ops, segmentBytes, interval) => {
          const harness = new Harness({
            segmentBytes,
            indexIntervalBytes: Math.min(interval, segmentBytes),
          });
          try {
            for (const op of ops) {
              harness.apply(op);
              harness.log.checkInvariants();
            }
            harness.checkAll();
            harness.log.close();
            harness.log = Log.open(harness.dir, harness.options);
            harness.log.checkInvariants();
            harness.checkAll();
          } finally {
            harness.log.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
