import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patternBytes } from '../../test/fixtures/sim-disk-tree.js';
import { isStorageError } from '../errors.js';
import type { FileHandle } from '../io/file-io.js';
import { SimDisk } from './sim-disk.js';

const FILES = ['/d/f0', '/d/f1'] as const;
const MAX_FILE_BYTES = 6000;

type Op =
  | { kind: 'write'; file: number; positionBytes: number; lengthBytes: number; tag: number }
  | { kind: 'truncate'; file: number; sizeBytes: number }
  | { kind: 'sync'; file: number; fails: boolean }
  | { kind: 'crash' };

const fileArb = fc.integer({ min: 0, max: FILES.length - 1 });
// Sector boundaries and their neighbours find more torn-sector and truncation cases than
// uniform positions do.
const boundaryArb = fc
  .tuple(fc.integer({ min: 0, max: 11 }), fc.constantFrom(-1, 0, 1))
  .map(([sector, nudge]) => Math.max(0, sector * 512 + nudge));
const positionArb = (maxBytes: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc.integer({ min: 0, max: maxBytes }),
    boundaryArb.filter((at) => at <= maxBytes),
  );
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      file: fileArb,
      positionBytes: positionArb(4000),
      lengthBytes: fc.integer({ min: 1, max: 1500 }),
      tag: fc.integer({ min: 1, max: 255 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('truncate' as const),
      file: fileArb,
      sizeBytes: positionArb(MAX_FILE_BYTES),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('sync' as const),
      file: fileArb,
      fails: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

/**
 * What a file must hold after a crash. A byte is guaranteed once an fdatasync succeeded after
 * its last write (or the truncate that zeroed it) with no failed fdatasync in between; a
 * truncation below it revokes that.
 */
class FileModel {
  content: Uint8Array;
  readonly guaranteed = new Uint8Array(MAX_FILE_BYTES);
  readonly pending = new Uint8Array(MAX_FILE_BYTES);
  /** True while the last call that changed the file was a successful fdatasync. */
  sizeIsDurable = true;

  /** Everything in a file that came back from a crash is durable. */
  constructor(durable: Uint8Array) {
    this.content = durable;
    this.guaranteed.fill(1, 0, durable.length);
  }

  write(data: Uint8Array, positionBytes: number): void {
    const end = positionBytes + data.length;
    const grown = new Uint8Array(Math.max(this.content.length, end));
    grown.set(this.content);
    grown.set(data, positionBytes);
    this.content = grown;
    this.guaranteed.fill(0, positionBytes, end);
    this.pending.fill(1, positionBytes, end);
    this.sizeIsDurable = false;
  }

  /** Shrinking revokes what was cut; growing adds zeros that fdatasync must make durable. */
  truncate(sizeBytes: number): void {
    const oldSizeBytes = this.content.length;
    const resized = new Uint8Array(sizeBytes);
    resized.set(this.content.subarray(0, sizeBytes));
    this.content = resized;
    this.guaranteed.fill(0, sizeBytes);
    this.pending.fill(0, sizeBytes);
    if (sizeBytes > oldSizeBytes) this.pending.fill(1, oldSizeBytes, sizeBytes);
    this.sizeIsDurable = false;
  }

  synced(succeeded: boolean): void {
    for (let i = 0; i < MAX_FILE_BYTES; i++) {
      if (succeeded && this.pending[i] === 1) this.guaranteed[i] = 1;
    }
    this.pending.fill(0);
    this.sizeIsDurable = succeeded;
  }

  /** The first guaranteed position the crashed content gets wrong, or -1. */
  firstViolation(crashed: Uint8Array): number {
    if (this.sizeIsDurable && crashed.length !== this.content.length) return crashed.length;
    for (let i = 0; i < MAX_FILE_BYTES; i++) {
      if (this.guaranteed[i] === 1 && crashed[i] !== this.content[i]) return i;
    }
    return -1;
  }
}

function openAll(disk: SimDisk): FileHandle[] {
  return FILES.map((file) => disk.open(file, { create: false }));
}

function applyOp(disk: SimDisk, handles: FileHandle[], models: FileModel[], op: Op): void {
  if (op.kind === 'crash') return;
  const handle = handles[op.file] as FileHandle;
  const model = models[op.file] as FileModel;
  if (op.kind === 'write') {
    const data = patternBytes(op.lengthBytes, op.tag);
    disk.write(handle, data, 0, data.length, op.positionBytes);
    model.write(data, op.positionBytes);
  } else if (op.kind === 'truncate') {
    disk.truncate(handle, op.sizeBytes);
    model.truncate(op.sizeBytes);
  } else {
    if (op.fails) disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    let failed = false;
    try {
      disk.fdatasync(handle);
    } catch (error) {
      if (!isStorageError(error, 'IO_ERROR')) throw error;
      failed = true;
    }
    expect(failed).toBe(op.fails);
    model.synced(!failed);
  }
}

/** Crashes, checks every model against what survived, and restarts the models from it. */
function crashAndCheck(disk: SimDisk, models: FileModel[]): SimDisk {
  const next = disk.crash();
  FILES.forEach((file, i) => {
    const crashed = next.readWholeFile(file) ?? new Uint8Array(0);
    expect((models[i] as FileModel).firstViolation(crashed), `${file} after crash`).toBe(-1);
    models[i] = new FileModel(crashed);
  });
  return next;
}

describe('SimDisk durability property', () => {
  it('reads back exactly every range a completed fdatasync covered, after any crash', () => {
    fc.assert(
      fc.property(fc.nat(), fc.array(opArb, { maxLength: 40 }), (seed, ops) => {
        let disk = new SimDisk({ seed });
        disk.mkdirp('/d');
        for (const file of FILES) disk.close(disk.open(file, { create: true }));
        disk.syncAll();
        const models = FILES.map(() => new FileModel(new Uint8Array(0)));
        let handles = openAll(disk);
        for (const op of ops) {
          if (op.kind !== 'crash') {
            applyOp(disk, handles, models, op);
            continue;
          }
          disk = crashAndCheck(disk, models);
          handles = openAll(disk);
        }
        crashAndCheck(disk, models);
      }),
      { numRuns: 500 },
    );
  });
});
