/**
 * What the crash loop's outside events (storage/testing/crash-outside-events.ts) expect of a log,
 * each on one small log written under `always` and closed: a second writer refused while the log
 * (or a queue) is open; a removed or renamed segment refused at open, and the log whole again
 * once it is put back; bytes after a sealed segment's last record reported and never served; a
 * recovery point moved to any record boundary trusted, at no cost in records.
 */
import { describe, expect, it } from 'vitest';
import { isStorageError, type StorageErrorCode } from '../errors.js';
import { LogQueue } from '../queue/log-queue.js';
import { Log } from './log.js';
import { writeRecoveryPoint } from '../segments/recovery-point.js';
import { LOG_SUFFIX, segmentFileName } from '../segments/segment-files.js';
import { SimDisk } from '../sim/sim-disk.js';
import { SlotFileQueue } from '../queue/slot-file.js';
import {
  recordBoundaries,
  removeFiles,
  renameSegment,
  restoreFiles,
  segmentBases,
} from '../testing/crash-outside-events.js';

const DIR = '/data/log';
const RECORDS = 40;
/** 200-byte bodies in 1024-byte segments: four records a segment, ten segments. */
const SEGMENT_BYTES = 1024;
const BODY_BYTES = 200;

function bodyOf(offset: number): Buffer {
  return Buffer.from(`record ${offset} `.padEnd(BODY_BYTES, '.'));
}

function openLog(disk: SimDisk): Log {
  return Log.open(DIR, {
    io: disk,
    durability: 'always',
    syncMode: 'inline',
    segmentBytes: SEGMENT_BYTES,
  });
}

/** A disk holding a closed log of RECORDS records in several segments. */
function diskWithLog(): SimDisk {
  const disk = new SimDisk({ seed: 14 });
  disk.mkdirp('/data');
  disk.fsyncDir('/');
  const log = openLog(disk);
  for (let offset = 0; offset < RECORDS; offset++) log.appendNoWait(bodyOf(offset));
  log.close();
  return disk;
}

/** The code the open refuses with, or 'opened' (the log is closed again). */
function openOutcome(disk: SimDisk): StorageErrorCode | 'opened' {
  try {
    openLog(disk).close();
    return 'opened';
  } catch (error) {
    if (isStorageError(error)) return error.code;
    throw error;
  }
}

/** Opens and reads every record in order: all there, and the next offset is the one after. */
function expectWhole(disk: SimDisk): void {
  const log = openLog(disk);
  try {
    const reader = log.reader(log.startOffset);
    const bodies: string[] = [];
    for (let record = reader.next(); record !== null; record = reader.next()) {
      bodies.push(record.body.toString());
    }
    const expected = Array.from({ length: RECORDS }, (_, offset) => bodyOf(offset).toString());
    expect(log.startOffset).toBe(0);
    expect(bodies).toEqual(expected);
    expect(log.endOffset).toBe(RECORDS);
  } finally {
    log.close();
  }
}

/** Bytes no record starts with: a length field far above any record limit. */
function randomBytes(lengthBytes: number): Buffer {
  return Buffer.from(Array.from({ length: lengthBytes }, (_, i) => (i * 151 + 0xc7) & 0xff));
}

function appendBytes(disk: SimDisk, base: number, bytes: Buffer): void {
  const handle = disk.open(`${DIR}/${segmentFileName(base, LOG_SUFFIX)}`, { create: false });
  disk.write(handle, bytes, 0, bytes.length, disk.sizeBytes(handle));
  disk.fdatasync(handle);
  disk.close(handle);
}

/** Bytes after segment 0's last record, segment 1 removed: refused, and whole once put back. */
function expectGapWithBytesAfterFirstSegment(bytes: Buffer): void {
  const disk = diskWithLog();
  const bases = segmentBases(disk, DIR);
  appendBytes(disk, bases[0]!, bytes);
  const saved = removeFiles(disk, DIR, bases[1]!);
  expect(openOutcome(disk)).toBe('LOG_GAP');
  restoreFiles(disk, DIR, saved);
  expectWhole(disk);
}

describe('a log changed from outside while it was closed', () => {
  it('refuses to open with a middle segment removed (LOG_GAP) and is whole once it is put back', () => {
    const disk = diskWithLog();
    const bases = segmentBases(disk, DIR);
    expect(bases.length).toBeGreaterThanOrEqual(4);
    for (const base of bases.slice(1, -1)) {
      const saved = removeFiles(disk, DIR, base);
      expect(openOutcome(disk), `segment ${base} removed`).toBe('LOG_GAP');
      restoreFiles(disk, DIR, saved);
      expectWhole(disk);
    }
  });

  it('refuses to open with a middle segment removed whatever record boundary the point names', () => {
    const disk = diskWithLog();
    const bases = segmentBases(disk, DIR);
    const removed = bases[bases.length - 2]!;
    for (const base of bases.slice(0, -1)) {
      for (const point of recordBoundaries(disk, DIR, base)) {
        writeRecoveryPoint(disk, DIR, point);
        const saved = removeFiles(disk, DIR, removed);
        const where = `segment ${removed} removed, point ${JSON.stringify(point)}`;
        expect(openOutcome(disk), where).toBe('LOG_GAP');
        restoreFiles(disk, DIR, saved);
      }
    }
    expectWhole(disk);
  });

  it(
    'refuses to open with a segment renamed (SEGMENT_NAME_MISMATCH) and is whole once renamed ' +
      'back',
    () => {
      const disk = diskWithLog();
      const bases = segmentBases(disk, DIR);
      for (const base of bases) {
        for (const renamed of [base + 1, base + 100, ...(base > 0 ? [base - 1] : [])]) {
          if (bases.includes(renamed)) continue;
          renameSegment(disk, DIR, base, renamed);
          expect(openOutcome(disk), `${base} renamed to ${renamed}`).toBe('SEGMENT_NAME_MISMATCH');
          renameSegment(disk, DIR, renamed, base);
        }
      }
      expectWhole(disk);
    },
  );

  it(
    'refuses to open with its last segment removed while the recovery point vouches for records ' +
      'in it (LOG_GAP)',
    () => {
      const disk = diskWithLog();
      const last = segmentBases(disk, DIR).at(-1)!;
      const saved = removeFiles(disk, DIR, last);
      expect(openOutcome(disk)).toBe('LOG_GAP');
      restoreFiles(disk, DIR, saved);
      expectWhole(disk);
    },
  );

  it("opens with bytes after a sealed segment's last record, reports them and never serves them", () => {
    const disk = diskWithLog();
    const bases = segmentBases(disk, DIR);
    appendBytes(disk, bases[0]!, Buffer.alloc(64));
    appendBytes(disk, bases[2]!, randomBytes(64));
    const log = openLog(disk);
    const kinds = log.recovery.findings.map((finding) => [finding.segment, finding.kind]);
    log.close();
    expect(kinds).toEqual([
      [`${DIR}/${segmentFileName(bases[0]!, LOG_SUFFIX)}`, 'trailing-zeros'],
      [`${DIR}/${segmentFileName(bases[2]!, LOG_SUFFIX)}`, 'trailing-bytes'],
    ]);
    expectWhole(disk);
  });

  it('trusts a recovery point moved to any record boundary of any segment and loses nothing', () => {
    const disk = diskWithLog();
    for (const base of segmentBases(disk, DIR)) {
      for (const point of recordBoundaries(disk, DIR, base)) {
        writeRecoveryPoint(disk, DIR, point);
        const log = openLog(disk);
        const { recoveryPointProblem } = log.recovery;
        const end = log.endOffset;
        log.close();
        expect([recoveryPointProblem, end], JSON.stringify(point)).toEqual([null, RECORDS]);
      }
    }
    expectWhole(disk);
  });

  // Found by the crash loop (seed 651, log, none, at 6d7c055): the bytes after segment 0's last
  // record made the chain check's walk end on a problem, which it read as damaged records of
  // segment 0 rather than a gap, so the log opened without the removed segment's records.
  it(
    'refuses to open with a middle segment removed after a sealed segment that zero bytes ' +
      'follow (LOG_GAP)',
    () => {
      expectGapWithBytesAfterFirstSegment(Buffer.alloc(64));
    },
  );

  // Random bytes: 64 of them could be four damaged records of the smallest size (16 bytes), and
  // the removed segment held four; but not one frame in them has a plausible length, let alone
  // an id among the missing offsets (seed 2269, log, none, at 6d7c055, is the zero-byte case).
  it(
    'refuses to open with a middle segment removed after a sealed segment that 64 bytes follow ' +
      'in which no record header is plausible (LOG_GAP)',
    () => {
      expectGapWithBytesAfterFirstSegment(randomBytes(64));
    },
  );

  // The same with the recovery point in that segment (a point the data agrees with): the walk
  // of the region after the point takes the bytes for the unsynced tail, so the open cuts there
  // and deletes every later segment, records acknowledged under `always` among them.
  it(
    'refuses to open with a middle segment removed after a sealed segment that bytes follow, ' +
      'the recovery point in that segment, and deletes nothing (LOG_GAP)',
    () => {
      const disk = diskWithLog();
      const bases = segmentBases(disk, DIR);
      appendBytes(disk, bases[0]!, Buffer.alloc(64));
      writeRecoveryPoint(disk, DIR, recordBoundaries(disk, DIR, bases[0]!)[1]!);
      const saved = removeFiles(disk, DIR, bases[1]!);
      expect(openOutcome(disk)).toBe('LOG_GAP');
      restoreFiles(disk, DIR, saved);
      expect(segmentBases(disk, DIR)).toEqual(bases);
    },
  );

  // The recovery point says offsets up to 39 were synced in segment 36; with that segment gone
  // (the only one), the open creates a new log at offset 0 and hands offsets 0 to 39 out again.
  it(
    'refuses to open with its only segment removed while the recovery point vouches for records ' +
      'in it',
    () => {
      const disk = new SimDisk({ seed: 14 });
      disk.mkdirp('/data');
      disk.fsyncDir('/');
      const log = Log.open(DIR, { io: disk, durability: 'always', syncMode: 'inline' });
      for (let offset = 0; offset < 5; offset++) log.appendNoWait(bodyOf(offset));
      log.close();
      removeFiles(disk, DIR, 0);
      expect(openOutcome(disk)).toBe('LOG_GAP');
    },
  );
});

describe('a second writer', () => {
  function diskWithData(): SimDisk {
    const disk = new SimDisk({ seed: 14 });
    disk.mkdirp('/data');
    disk.fsyncDir('/');
    return disk;
  }

  function expectLocked(
    disk: SimDisk,
    open: () => { close(): unknown },
    lockedCode: 'LOG_LOCKED' | 'QUEUE_LOCKED',
  ): void {
    const handles = disk.openHandles;
    const locks = disk.heldLocks;
    let code: string = 'opened';
    try {
      void open().close();
    } catch (error) {
      code = isStorageError(error) ? error.code : String(error);
    }
    expect([code, disk.openHandles, disk.heldLocks]).toEqual([lockedCode, handles, locks]);
  }

  it('is refused with LOG_LOCKED while the log is open, and the log goes on', async () => {
    const disk = diskWithData();
    const log = openLog(disk);
    log.appendNoWait(bodyOf(0));
    expectLocked(disk, () => openLog(disk), 'LOG_LOCKED');
    expect(log.appendNoWait(bodyOf(1))).toBe(1);
    await log.acknowledged(1 as never);
    expect(log.read(1).body).toEqual(bodyOf(1));
    await log.close();
    expect(openOutcome(disk)).toBe('opened');
  });

  it('is refused with QUEUE_LOCKED while a log queue or a slot file is open, and they go on', async () => {
    const disk = diskWithData();
    const options = { io: disk, durability: 'always' as const };
    const queue = LogQueue.open('/data/queue', options);
    const slots = SlotFileQueue.open('/data/slot-queue', options);
    expectLocked(disk, () => LogQueue.open('/data/queue', options), 'QUEUE_LOCKED');
    expectLocked(disk, () => SlotFileQueue.open('/data/slot-queue', options), 'QUEUE_LOCKED');
    for (const open of [queue, slots]) {
      const id = await open.send(bodyOf(7));
      expect(open.receive({ visibilityTimeoutMs: 1000 })).toMatchObject({ id, body: bodyOf(7) });
      await open.close();
    }
  });
});
