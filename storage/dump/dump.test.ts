/**
 * `loglab dump`'s view of the segment chain, on a simulated disk: each break the log refuses or
 * warns about when it opens (segment-chain.ts) is one `chain` entry, found from dump's own walk
 * of the records, and the log's own verdict on the same files is checked beside it.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DumpOptions, dumpLog, segmentsToDump } from './dump.js';
import type { DumpEntry, DumpedChainProblem } from './dump-entries.js';
import { isStorageError } from '../errors.js';
import type { FileIO } from '../io/file-io.js';
import { Log } from '../log/log.js';
import { LOG_SUFFIX, segmentFileName } from '../segments/segment-files.js';
import { SimDisk } from '../sim/sim-disk.js';
import { writeRecoveryPoint } from '../segments/recovery-point.js';
import { chainProblemAdvice } from './dump-chain.js';

const DIR = '/data/log';
const SEGMENT_BYTES = 1024;
const RECORDS = 120;
const ALL: DumpOptions = { records: true, index: true, timeIndex: true, verify: true };
const SUFFIXES = ['.log', '.index', '.timeindex'] as const;

const bodyOf = (offset: number): Buffer => Buffer.from(`message number ${offset}`);

/** A closed log of RECORDS records over four or more segments of SEGMENT_BYTES. */
function writtenLog(): SimDisk {
  const disk = new SimDisk({ seed: 7 });
  const log = Log.open(DIR, { io: disk, segmentBytes: SEGMENT_BYTES, nowMs: () => 0 });
  for (let offset = 0; offset < RECORDS; offset++) log.appendNoWait(bodyOf(offset));
  log.close();
  return disk;
}

function segmentBases(io: FileIO): number[] {
  return [...segmentsToDump(io, DIR).baseOffsets];
}

function dumpAll(io: FileIO, target = DIR, options: DumpOptions = ALL): DumpEntry[] {
  return [...dumpLog(io, segmentsToDump(io, target), options)];
}

function chainOf(entries: readonly DumpEntry[]): DumpEntry[] {
  return entries.filter((entry) => entry.type === 'chain');
}

function invalidOf(entries: readonly DumpEntry[]): DumpEntry[] {
  return entries.filter((entry) => 'valid' in entry && entry.valid === false);
}

function appendBytes(io: FileIO, file: string, bytes: Buffer): void {
  const handle = io.open(file, { create: false });
  try {
    io.write(handle, bytes, 0, bytes.length, io.sizeBytes(handle));
  } finally {
    io.close(handle);
  }
}

function logPath(baseOffset: number): string {
  return path.posix.join(DIR, segmentFileName(baseOffset, LOG_SUFFIX));
}

/** The code the log refuses to open with, or null when it opens. */
function openRefusal(io: FileIO): string | null {
  try {
    Log.open(DIR, { io, segmentBytes: SEGMENT_BYTES, readOnly: true }).close();
    return null;
  } catch (error) {
    if (isStorageError(error)) return error.code;
    throw error;
  }
}

describe('dump reports the segment chain', () => {
  it('reports no chain problem and nothing invalid for a log as the log wrote it', () => {
    const disk = writtenLog();
    expect(segmentBases(disk).length).toBeGreaterThanOrEqual(4);
    const entries = dumpAll(disk);
    expect(chainOf(entries)).toEqual([]);
    expect(invalidOf(entries)).toEqual([]);
    const records = entries.filter((entry) => entry.type === 'record');
    expect(records.map((entry) => entry.offset)).toEqual([...Array(RECORDS).keys()]);
  });

  it('reports a missing middle segment as a gap from the last record to the next segment', () => {
    const disk = writtenLog();
    const [first, missing, next] = segmentBases(disk) as [number, number, number];
    for (const suffix of SUFFIXES) {
      disk.unlink(path.posix.join(DIR, segmentFileName(missing, suffix)));
    }
    expect(openRefusal(disk)).toBe('LOG_GAP');
    const entries = dumpAll(disk);
    expect(chainOf(entries)).toEqual([
      {
        type: 'chain',
        segment: segmentFileName(first, LOG_SUFFIX),
        problem: 'gap',
        fromOffset: missing,
        toOffset: next - 1,
        next: segmentFileName(next, LOG_SUFFIX),
      },
    ]);
    expect(invalidOf(entries)).toEqual([]);
  });

  it('reports a renamed segment once, and dumps its records and index from its first id', () => {
    const disk = writtenLog();
    const renamed = segmentBases(disk)[1]!;
    for (const suffix of SUFFIXES) {
      const from = path.posix.join(DIR, segmentFileName(renamed, suffix));
      disk.rename(from, path.posix.join(DIR, segmentFileName(renamed + 2, suffix)));
    }
    expect(openRefusal(disk)).toBe('SEGMENT_NAME_MISMATCH');
    const entries = dumpAll(disk);
    const name = segmentFileName(renamed + 2, LOG_SUFFIX);
    expect(chainOf(entries)).toEqual([
      {
        type: 'chain',
        segment: name,
        problem: 'name-mismatch',
        nameOffset: renamed + 2,
        firstOffset: renamed,
      },
    ]);
    // Taken at its name, every record would be "unexpected id" and every index entry astray.
    expect(invalidOf(entries)).toEqual([]);
    const records = entries.filter((entry) => entry.type === 'record');
    expect(records.map((entry) => entry.offset)).toEqual([...Array(RECORDS).keys()]);
  });

  for (const [what, bytes, problem] of [
    ['zero bytes', Buffer.alloc(64), 'trailing-zeros'],
    ['garbage', Buffer.alloc(64, 0xa7), 'trailing-bytes'],
  ] as const) {
    it(`reports 64 bytes of ${what} after a sealed segment's last record as ${problem}`, () => {
      const disk = writtenLog();
      const [, sealed, next] = segmentBases(disk) as [number, number, number];
      const file = logPath(sealed);
      const handle = disk.openReadOnly(file);
      const recordsEndBytes = disk.sizeBytes(handle);
      disk.close(handle);
      appendBytes(disk, file, bytes);
      expect(openRefusal(disk)).toBeNull();
      const entries = dumpAll(disk);
      expect(chainOf(entries)).toEqual([
        {
          type: 'chain',
          segment: segmentFileName(sealed, LOG_SUFFIX),
          problem,
          position: recordsEndBytes,
          sizeBytes: 64,
          next: segmentFileName(next, LOG_SUFFIX),
        },
      ]);
      // The bytes are no record of this log: not one holding offset `next`, which is elsewhere.
      expect(invalidOf(entries)).toEqual([]);
      expect(entries.filter((entry) => entry.type === 'zeros')).toEqual([]);
    });
  }

  it('reports a segment whose records run into the next one as an overlap', () => {
    const disk = writtenLog();
    const [, sealed, next, after] = segmentBases(disk) as [number, number, number, number];
    const nextBytes = disk.readWholeFile(logPath(next))!;
    appendBytes(disk, logPath(sealed), nextBytes);
    expect(openRefusal(disk)).toBe('SEGMENT_OVERLAP');
    expect(chainOf(dumpAll(disk))).toEqual([
      {
        type: 'chain',
        segment: segmentFileName(sealed, LOG_SUFFIX),
        problem: 'overlap',
        fromOffset: next,
        toOffset: after - 1,
        next: segmentFileName(next, LOG_SUFFIX),
      },
    ]);
  });

  it('reports a sealed segment whose last record was zeroed as a gap: zeros are never a record', () => {
    const disk = writtenLog();
    const [, sealed, next] = segmentBases(disk) as [number, number, number];
    const isLast = (entry: DumpEntry): boolean =>
      entry.type === 'record' && entry.offset === next - 1;
    const lastRecord = dumpAll(disk).find(isLast);
    if (lastRecord?.type !== 'record') throw new Error(`no record ${next - 1} in the dump`);
    const { position, sizeBytes } = lastRecord;
    const handle = disk.open(logPath(sealed), { create: false });
    disk.write(handle, Buffer.alloc(sizeBytes), 0, sizeBytes, position);
    disk.close(handle);
    expect(openRefusal(disk)).toBe('LOG_GAP');
    expect(chainOf(dumpAll(disk))).toEqual([
      {
        type: 'chain',
        segment: segmentFileName(sealed, LOG_SUFFIX),
        problem: 'gap',
        fromOffset: next - 1,
        toOffset: next - 1,
        next: segmentFileName(next, LOG_SUFFIX),
      },
    ]);
  });

  it('says a short segment the recovery point names as sealing is a crash tail that opening cuts', () => {
    const disk = writtenLog();
    const [, sealed, next] = segmentBases(disk) as [number, number, number];
    const lastRecord = dumpAll(disk).find(
      (entry) => entry.type === 'record' && entry.offset === next - 1,
    );
    if (lastRecord?.type !== 'record') throw new Error(`no record ${next - 1} in the dump`);
    // A roll under none whose background sync a crash cut short: its last record never landed.
    const handle = disk.open(logPath(sealed), { create: false });
    disk.truncate(handle, lastRecord.position);
    disk.close(handle);
    writeRecoveryPoint(disk, DIR, {
      segmentBaseOffset: sealed,
      positionBytes: 0,
      nextOffset: sealed,
      sealing: true,
    });
    const [entry] = chainOf(dumpAll(disk));
    expect(entry).toMatchObject({ problem: 'gap', fromOffset: next - 1, unsynced: true });
    expect(chainProblemAdvice(entry as DumpedChainProblem, DIR)).toMatch(
      /background sync finished .* opening the log cuts it/,
    );
    expect(openRefusal(disk)).toBeNull();
  });

  it('reports zeros after the active segment as its preallocated tail, not a problem', () => {
    const disk = writtenLog();
    const active = segmentBases(disk).at(-1)!;
    const handle = disk.openReadOnly(logPath(active));
    const dataEndBytes = disk.sizeBytes(handle);
    disk.close(handle);
    appendBytes(disk, logPath(active), Buffer.alloc(64));
    const entries = dumpAll(disk);
    expect(chainOf(entries)).toEqual([]);
    expect(invalidOf(entries)).toEqual([]);
    expect(entries.filter((entry) => entry.type === 'zeros')).toEqual([
      {
        type: 'zeros',
        segment: segmentFileName(active, LOG_SUFFIX),
        position: dataEndBytes,
        sizeBytes: 64,
      },
    ]);
  });

  it('checks only the name of a segment dumped alone: its neighbours are not read', () => {
    const disk = writtenLog();
    const [, sealed] = segmentBases(disk) as [number, number];
    appendBytes(disk, logPath(sealed), Buffer.alloc(64));
    const alone = dumpAll(disk, logPath(sealed));
    expect(chainOf(alone)).toEqual([]);
    expect(alone.filter((entry) => entry.type === 'zeros')).toMatchObject([{ sizeBytes: 64 }]);
  });
});
