import { describe, expect, it } from 'vitest';
import { SimDisk } from '../storage/sim/sim-disk.js';
import { DurableWatermarkFileIO } from './durable-watermark.js';

const RECORD_BYTES = 8;
/** Records of RECORD_BYTES or less, one per write; a whole record count in a longer write. */
const watchLogs = (file: string, _buffer: Uint8Array, _offset: number, lengthBytes: number) => {
  if (!file.endsWith('.log') || lengthBytes > 4 * RECORD_BYTES) return 0;
  return Math.max(1, Math.floor(lengthBytes / RECORD_BYTES));
};
const counts = (io: DurableWatermarkFileIO) => ({
  issued: io.recordsIssued,
  durable: io.recordsDurable,
});

describe('DurableWatermarkFileIO', () => {
  it('counts written records and credits those an fdatasync covered', () => {
    const io = new DurableWatermarkFileIO(new SimDisk({ seed: 1 }), watchLogs);
    const log = io.open('/a.log', { create: true });
    const index = io.open('/a.index', { create: true });
    const bytes = new Uint8Array(8);
    io.write(log, bytes, 0, 8, 0);
    io.write(log, bytes, 0, 8, 8);
    io.write(index, bytes, 0, 8, 0);
    // Zero-filling a preallocated segment is not a record.
    io.write(log, new Uint8Array(4096), 0, 4096, 4096);
    expect(counts(io)).toEqual({ issued: 2, durable: 0 });
    io.fdatasync(log);
    io.write(log, bytes, 0, 8, 16);
    expect(counts(io)).toEqual({ issued: 3, durable: 2 });
    // Group commit writes several records at once.
    io.write(log, new Uint8Array(24), 0, 24, 24);
    expect(counts(io)).toEqual({ issued: 6, durable: 2 });
    expect(io.counters.writeCalls).toBe(6);
    expect(io.counters.fdatasyncCalls).toBe(1);
  });

  it('credits an async fdatasync when it returns, with the writes issued before it', async () => {
    const io = new DurableWatermarkFileIO(new SimDisk({ seed: 2 }), watchLogs);
    const log = io.open('/b.log', { create: true });
    const bytes = new Uint8Array(4);
    io.write(log, bytes, 0, 4, 0);
    const sync = io.fdatasyncAsync(log);
    io.write(log, bytes, 0, 4, 4);
    expect(io.recordsDurable).toBe(0);
    await sync;
    expect(counts(io)).toEqual({ issued: 2, durable: 1 });
  });

  it('keeps the counts of files it closed', () => {
    const io = new DurableWatermarkFileIO(new SimDisk({ seed: 3 }), watchLogs);
    const log = io.open('/c.log', { create: true });
    io.write(log, new Uint8Array(1), 0, 1, 0);
    io.fdatasync(log);
    io.write(log, new Uint8Array(1), 0, 1, 1);
    io.close(log);
    expect(counts(io)).toEqual({ issued: 2, durable: 1 });
  });
});
