import { describe, expect, it } from 'vitest';
import { DelegatingFileIO } from '../storage/io/delegating-file-io.js';
import { SimDisk } from '../storage/sim/sim-disk.js';
import { DurableWatermarkFileIO } from './durable-watermark.js';

const RECORD_BYTES = 8;
const NONE = { records: 0, bytes: 0 };
/** A write's bytes up to its first zero are records of RECORD_BYTES (the last may be shorter). */
const watchLogs = (file: string, buffer: Uint8Array, start: number, lengthBytes: number) => {
  if (!file.endsWith('.log')) return NONE;
  const zero = buffer.subarray(start, start + lengthBytes).indexOf(0);
  const bytes = zero === -1 ? lengthBytes : zero;
  return { records: Math.ceil(bytes / RECORD_BYTES), bytes };
};
const recordBytes = (length: number) => new Uint8Array(length).fill(1);
const counts = (io: DurableWatermarkFileIO) => ({
  issued: io.recordsIssued,
  durable: io.recordsDurable,
});

describe('DurableWatermarkFileIO', () => {
  it('counts written records and credits those an fdatasync covered', () => {
    const io = new DurableWatermarkFileIO(new SimDisk({ seed: 1 }), watchLogs);
    const log = io.open('/a.log', { create: true });
    const index = io.open('/a.index', { create: true });
    const bytes = recordBytes(8);
    io.write(log, bytes, 0, 8, 0);
    io.write(log, bytes, 0, 8, 8);
    io.write(index, bytes, 0, 8, 0);
    // Zero-filling a preallocated segment is not a record.
    io.write(log, new Uint8Array(4096), 0, 4096, 8192);
    expect(counts(io)).toEqual({ issued: 2, durable: 0 });
    io.fdatasync(log);
    io.write(log, bytes, 0, 8, 16);
    expect(counts(io)).toEqual({ issued: 3, durable: 2 });
    // Group commit writes several records at once.
    io.write(log, recordBytes(24), 0, 24, 24);
    expect(counts(io)).toEqual({ issued: 6, durable: 2 });
    expect(io.counters.writeCalls).toBe(6);
    expect(io.counters.fdatasyncCalls).toBe(1);
  });

  it('credits an async fdatasync when it returns, with the writes issued before it', async () => {
    const io = new DurableWatermarkFileIO(new SimDisk({ seed: 2 }), watchLogs);
    const log = io.open('/b.log', { create: true });
    const bytes = recordBytes(4);
    io.write(log, bytes, 0, 4, 0);
    const sync = io.fdatasyncAsync(log);
    io.write(log, bytes, 0, 4, 4);
    expect(io.recordsDurable).toBe(0);
    await sync;
    expect(counts(io)).toEqual({ issued: 2, durable: 1 });
  });

  it('follows a file by path: a direct write through one handle, its sync through another', async () => {
    const disk = new SimDisk({ seed: 4 });
    const io = new DurableWatermarkFileIO(disk, watchLogs);
    const log = io.open('/d.log', { create: true });
    const direct = io.openDirect('/d.log')!;
    const block = new Uint8Array(512);
    // Two records in the file's first block, zeros after them.
    block.fill(1, 0, 2 * RECORD_BYTES);
    io.write(direct, block, 0, 512, 0);
    expect(counts(io)).toEqual({ issued: 2, durable: 0 });
    // The next write starts at the same block: its first two records are counted already.
    block.fill(1, 0, 3 * RECORD_BYTES);
    io.write(direct, block, 0, 512, 0);
    expect(counts(io)).toEqual({ issued: 3, durable: 0 });
    await io.fdatasyncAsync(log);
    expect(counts(io)).toEqual({ issued: 3, durable: 3 });
    // Cut back to one record: what is written after it is new.
    io.truncate(log, RECORD_BYTES);
    block.fill(0).fill(1, 0, 2 * RECORD_BYTES);
    io.write(direct, block, 0, 512, 0);
    expect(counts(io)).toEqual({ issued: 4, durable: 3 });
    // Closing one of its handles keeps the file's counts where they were; the last moves them.
    io.close(direct);
    io.fdatasync(log);
    expect(counts(io)).toEqual({ issued: 4, durable: 4 });
    io.close(log);
    expect(counts(io)).toEqual({ issued: 4, durable: 4 });
  });

  it('credits a sync that ends after the file was closed', async () => {
    /** Syncs that end when the test says. */
    class HeldSyncs extends DelegatingFileIO {
      readonly ends: (() => void)[] = [];
      override fdatasyncAsync(): Promise<void> {
        return new Promise((resolve) => this.ends.push(resolve));
      }
    }
    const held = new HeldSyncs(new SimDisk({ seed: 5 }));
    const io = new DurableWatermarkFileIO(held, watchLogs);
    const log = io.open('/e.log', { create: true });
    io.write(log, recordBytes(8), 0, 8, 0);
    const sync = io.fdatasyncAsync(log);
    io.close(log);
    expect(counts(io)).toEqual({ issued: 1, durable: 0 });
    held.ends[0]!();
    await sync;
    expect(counts(io)).toEqual({ issued: 1, durable: 1 });
  });

  it('keeps the counts of files it closed', () => {
    const io = new DurableWatermarkFileIO(new SimDisk({ seed: 3 }), watchLogs);
    const log = io.open('/c.log', { create: true });
    io.write(log, recordBytes(1), 0, 1, 0);
    io.fdatasync(log);
    io.write(log, recordBytes(1), 0, 1, 1);
    io.close(log);
    expect(counts(io)).toEqual({ issued: 2, durable: 1 });
  });
});
