import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type TracedBytes,
  addTraced,
  attributeTrace,
  byteLedger,
  fileKindOf,
  rowBytesPerMsg,
  zeroFillWrites,
} from './byte-ledger.js';
import { flushedBlocks } from './trace-blocks.js';
import {
  TRACE_DIRECT_WRITE,
  TRACE_DIR_SYNC,
  TRACE_SYNC,
  TRACE_WRITE,
  WriteTrace,
} from './trace-io.js';

const BLOCK = 4096;
const RECORD = 1040;

/** A synthetic trace of a log under `always`, written the way storage/log/log.ts writes it. */
class LogTrace {
  readonly trace = new WriteTrace();
  readonly dir = this.trace.fileId('/d');
  readonly log = this.trace.fileId('/d/00000000000000000000.log');
  readonly index = this.trace.fileId('/d/00000000000000000000.index');
  readonly timeIndex = this.trace.fileId('/d/00000000000000000000.timeindex');
  readonly point = this.trace.fileId('/d/recovery-point.tmp');
  sizeBytes = 0;

  /** Zeros from `fromBytes` to `toBytes` in chunks, then their sync (segment.ts preallocate). */
  preallocate(fromBytes: number, toBytes: number, chunkBytes: number): this {
    for (let at = fromBytes; at < toBytes; at += chunkBytes) {
      this.trace.push(TRACE_WRITE, this.log, at, Math.min(chunkBytes, toBytes - at));
    }
    return this.sync(this.log);
  }

  /** One record at the end of the data, and its fdatasync. */
  append(): this {
    this.trace.push(TRACE_WRITE, this.log, this.sizeBytes, RECORD);
    this.sizeBytes += RECORD;
    return this.sync(this.log);
  }

  /** One record written directly (storage/io/direct-write.ts): its 512-byte blocks, then a sync. */
  appendDirect(): this {
    const start = this.sizeBytes - (this.sizeBytes % 512);
    const end = Math.ceil((this.sizeBytes + RECORD) / 512) * 512;
    this.trace.push(TRACE_DIRECT_WRITE, this.log, start, end - start);
    this.sizeBytes += RECORD;
    return this.sync(this.log);
  }

  write(file: number, positionBytes: number, lengthBytes: number): this {
    this.trace.push(TRACE_WRITE, file, positionBytes, lengthBytes);
    return this;
  }

  sync(file: number): this {
    this.trace.push(TRACE_SYNC, file, 0, 0);
    return this;
  }

  dirSync(): this {
    this.trace.push(TRACE_DIR_SYNC, this.dir, 0, 0);
    return this;
  }

  traced(): TracedBytes {
    return attributeTrace(this.trace, 0, this.trace.length, BLOCK);
  }
}

interface SimulatedLog {
  readonly recordsBytes: readonly number[];
  readonly extentBytes: number;
  readonly chunkBytes: number;
  readonly writesPerSync: number;
}

/**
 * The writes of storage/log/segment.ts and log.ts in miniature, with the truth recorded: before a
 * record that does not fit the preallocated space, zeros from its end to the next extent (in
 * chunks) and their sync; the record; a sync after every `writesPerSync` records.
 */
function simulatedLog(log: SimulatedLog): { trace: WriteTrace; zeros: number[] } {
  const trace = new WriteTrace();
  const file = trace.fileId('/d/00000000000000000000.log');
  const zeros: number[] = [];
  const push = (
    kind: typeof TRACE_WRITE | typeof TRACE_SYNC,
    at: number,
    bytes: number,
    zero: boolean,
  ) => {
    trace.push(kind, file, at, bytes);
    zeros.push(zero ? 1 : 0);
  };
  let sizeBytes = 0;
  let fileBytes = 0;
  log.recordsBytes.forEach((recordBytes, i) => {
    if (sizeBytes + recordBytes > fileBytes) {
      const target = Math.max(sizeBytes + recordBytes, fileBytes + log.extentBytes);
      for (let at = fileBytes; at < target; at += log.chunkBytes) {
        push(TRACE_WRITE, at, Math.min(log.chunkBytes, target - at), true);
      }
      push(TRACE_SYNC, 0, 0, false);
      fileBytes = target;
    }
    push(TRACE_WRITE, sizeBytes, recordBytes, false);
    sizeBytes += recordBytes;
    if ((i + 1) % log.writesPerSync === 0) push(TRACE_SYNC, 0, 0, false);
  });
  return { trace, zeros };
}

describe('naming the file a write went to', () => {
  it('knows the segment files, the checkpoint files and their temp files', () => {
    expect(fileKindOf('/d/00000000000000000042.log')).toBe('log');
    expect(fileKindOf('/d/00000000000000000042.index')).toBe('offsetIndex');
    expect(fileKindOf('/d/00000000000000000042.timeindex')).toBe('timeIndex');
    expect(fileKindOf('/d/recovery-point.tmp')).toBe('recoveryPoint');
    expect(fileKindOf('/d/recovery-point')).toBe('recoveryPoint');
    expect(fileKindOf('/q/head.tmp')).toBe('queueHead');
    expect(fileKindOf('/q/slots')).toBe('otherFiles');
    expect(fileKindOf('/d/spare-segment.layout')).toBe('spareLayout');
  });
});

describe('telling preallocated zeros from records', () => {
  it('calls zeros the writes that the next append goes back under', () => {
    const log = new LogTrace()
      .preallocate(0, 4 * BLOCK, 2 * BLOCK)
      .append()
      .append();
    const zeros = zeroFillWrites(log.trace, 0, log.trace.length);
    expect([...zeros]).toEqual([1, 1, 0, 0, 0, 0, 0]);
  });

  it('calls a later extent zeros although the records before it ran up to where it starts', () => {
    const log = new LogTrace()
      .preallocate(0, 2 * RECORD, RECORD)
      .append()
      .append();
    log.preallocate(2 * RECORD, 4 * RECORD, RECORD).append();
    const zeros = [...zeroFillWrites(log.trace, 0, log.trace.length)];
    const writes = zeros.filter((_, i) => log.trace.kindAt(i) === TRACE_WRITE);
    expect(writes).toEqual([1, 1, 0, 0, 1, 1, 0]);
  });

  it('finds exactly the zeros of a log preallocating extents, synced per write or group', () => {
    const shape = fc.record({
      recordsBytes: fc.array(fc.integer({ min: 16, max: 700 }), { minLength: 1, maxLength: 80 }),
      extentBytes: fc.integer({ min: 512, max: 4096 }),
      chunkBytes: fc.integer({ min: 100, max: 2048 }),
      writesPerSync: fc.integer({ min: 1, max: 4 }),
    });
    fc.assert(
      fc.property(shape, (log) => {
        const { trace, zeros } = simulatedLog(log);
        expect([...zeroFillWrites(trace, 0, trace.length)]).toEqual(zeros);
      }),
    );
  });

  it('calls records the writes whose page fill the next append writes over', () => {
    // storage/record/page-fill.ts: the first record reaching a page writes zeros to the page's end.
    const log = new LogTrace();
    const file = log.log;
    log.write(file, 0, BLOCK).sync(file).write(file, RECORD, RECORD).sync(file);
    log.write(file, 2 * RECORD, RECORD).sync(file);
    log.write(file, 3 * RECORD, 2 * BLOCK - 3 * RECORD).sync(file);
    log.write(file, 4 * RECORD, RECORD).sync(file);
    const zeros = [...zeroFillWrites(log.trace, 0, log.trace.length)];
    expect(zeros.filter((_, i) => log.trace.kindAt(i) === TRACE_WRITE)).toEqual([0, 0, 0, 0, 0]);
  });

  it('calls records every write of a reused file, which nothing writes over', () => {
    const log = new LogTrace().append().append().append();
    expect([...zeroFillWrites(log.trace, 0, log.trace.length)].every((zero) => zero === 0)).toBe(
      true,
    );
  });
});

describe('attributing a trace', () => {
  it('charges a record page per sync of the log, and a next page when a record crosses one', () => {
    // Records at 0, 1040, 2080 and 3120: the fourth ends at 4160, in the second block.
    const log = new LogTrace().preallocate(0, 4 * BLOCK, BLOCK);
    for (let i = 0; i < 4; i++) log.append();
    const { bytes, fdatasyncs } = log.traced();
    expect(bytes.recordPage).toBe(4 * BLOCK);
    expect(bytes.recordNextPage).toBe(BLOCK);
    expect(bytes.preallocation).toBe(4 * BLOCK);
    expect(fdatasyncs).toBe(5);
  });

  it('charges direct writes their own bytes, after the unsynced zeros they cover', () => {
    // Zeros written and not synced: the first direct write into each block has the kernel write
    // that block first; the block's later direct writes find it clean.
    const log = new LogTrace();
    log.write(log.log, 0, 2 * BLOCK);
    for (let i = 0; i < 4; i++) log.appendDirect();
    const { bytes } = log.traced();
    // Records at 0, 1040, 2080 and 3120: blocks of 512 from 0-1536, 1024-2560, 2048-3584, 3072-4608.
    expect(bytes.recordBlocks).toBe(1536 * 4);
    expect(bytes.preallocation).toBe(2 * BLOCK);
    expect(bytes.recordPage + bytes.recordNextPage).toBe(0);
  });

  it('charges index and recovery-point blocks to their own rows, once per sync', () => {
    const log = new LogTrace();
    log.write(log.index, 0, 8).write(log.index, 8, 8); // one block, written behind
    log.write(log.timeIndex, 0, 12);
    log.write(log.point, 0, 33).sync(log.point).dirSync();
    log.write(log.point, 0, 33).sync(log.point).dirSync();
    const traced = log.traced();
    expect(traced.bytes).toMatchObject({
      offsetIndex: BLOCK,
      timeIndex: BLOCK,
      recoveryPoint: 2 * BLOCK,
      recordPage: 0,
    });
    expect(traced.dirFsyncs).toBe(2);
  });

  it('charges a spare laid out for the next segment to preallocation, and its records to records', () => {
    const log = new LogTrace();
    const layout = log.trace.fileId('/d/spare-segment.layout');
    log
      .write(layout, 0, 2 * BLOCK)
      .write(layout, 2 * BLOCK, 2 * BLOCK)
      .sync(layout);
    // Renamed into place: the segment's file is opened by its name, records over the zeros.
    const next = log.trace.fileId('/d/00000000000000000100.log');
    log.write(next, 0, RECORD).sync(next);
    expect(log.traced().bytes).toMatchObject({
      preallocation: 4 * BLOCK,
      recordPage: BLOCK,
      otherFiles: 0,
    });
  });

  it('counts what is still dirty when the stretch ends, as a closing sync would write it', () => {
    const log = new LogTrace();
    log.write(log.index, 0, 8).write(log.index, BLOCK, 8);
    expect(log.traced().bytes.offsetIndex).toBe(2 * BLOCK);
  });

  it('counts only the stretch asked for', () => {
    const log = new LogTrace().preallocate(0, BLOCK, BLOCK).append();
    const from = log.trace.length;
    log.append();
    const traced = attributeTrace(log.trace, from, log.trace.length, BLOCK);
    expect(traced.bytes).toMatchObject({ recordPage: BLOCK, preallocation: 0 });
    expect(() => attributeTrace(log.trace, 0, log.trace.length + 1, BLOCK)).toThrow(/events/);
  });

  // Writes of at least a byte: flushedBlocks counts a block for an empty write at an unaligned
  // position, which the log never issues.
  it('agrees with flushedBlocks on the whole, for any trace', () => {
    const event = fc.record({
      kind: fc.constantFrom(TRACE_WRITE, TRACE_SYNC, TRACE_DIR_SYNC),
      file: fc.integer({ min: 0, max: 4 }),
      positionBytes: fc.integer({ min: 0, max: 40_000 }),
      lengthBytes: fc.integer({ min: 1, max: 9_000 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const log = new LogTrace();
        const files = [log.log, log.index, log.timeIndex, log.point, log.trace.fileId('/d/x')];
        for (const e of events) {
          const write = e.kind === TRACE_WRITE;
          log.trace.push(
            e.kind,
            files[e.file]!,
            write ? e.positionBytes : 0,
            write ? e.lengthBytes : 0,
          );
        }
        const traced = log.traced();
        const sum = Object.values(traced.bytes).reduce((total, bytes) => total + bytes, 0);
        expect(sum).toBe(flushedBlocks(log.trace, 0, log.trace.length, BLOCK) * BLOCK);
      }),
    );
  });
});

describe('the ledger', () => {
  const traced = (() => {
    const log = new LogTrace().preallocate(0, 4 * BLOCK, BLOCK);
    for (let i = 0; i < 4; i++) log.append();
    return log.write(log.index, 0, 8).write(log.point, 0, 33).sync(log.point).dirSync().traced();
  })();

  it('has rows that add up to the device total, the untraced rest named metadata', () => {
    const deviceBytes = 60_000;
    const ledger = byteLedger(traced, deviceBytes, 4);
    const sum = ledger.rows.reduce((total, row) => total + row.bytes, 0);
    expect(sum).toBe(deviceBytes);
    expect(ledger.rows.map((row) => row.cause)).toEqual([
      'recordPage',
      'recordNextPage',
      'preallocation',
      'offsetIndex',
      'timeIndex',
      'recoveryPoint',
      'metadata',
    ]);
    expect(rowBytesPerMsg(ledger, 'metadata')).toBe((deviceBytes - 11 * BLOCK) / 4);
    expect(rowBytesPerMsg(ledger, 'recordPage')).toBe(BLOCK);
    for (const row of ledger.rows) expect(row.title.length).toBeGreaterThan(0);
  });

  it('keeps a negative metadata row when the trace claims more than the disk wrote', () => {
    const ledger = byteLedger(traced, BLOCK, 4);
    expect(rowBytesPerMsg(ledger, 'metadata')).toBe((BLOCK - 11 * BLOCK) / 4);
    expect(ledger.rows.reduce((total, row) => total + row.bytes, 0)).toBe(BLOCK);
  });

  it('lists the queue head and other files only when the trace saw them', () => {
    const log = new LogTrace();
    log.write(log.trace.fileId('/q/head.tmp'), 0, 30);
    const ledger = byteLedger(addTraced(traced, log.traced()), 100_000, 4);
    expect(rowBytesPerMsg(ledger, 'queueHead')).toBe(BLOCK / 4);
    expect(ledger.rows.map((row) => row.cause)).not.toContain('otherFiles');
  });

  it('refuses a ledger of no messages', () => {
    expect(() => byteLedger(traced, 0, 0)).toThrow(/messages/);
  });
});
