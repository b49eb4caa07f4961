/**
 * Segment reuse on a simulated disk (log.ts, segment reuse): under `always` and `group`,
 * retention keeps a removed segment's file as the spare and the next roll renames it into place.
 * Behind the new segment's records then lie an older segment's records, sound, with ids below the
 * segment's base offset. None may ever be served — not even one that starts exactly where the
 * next record would — a torn record written over them must still be cut, and the recovery report
 * and `dump --verify` must not call them damage. A spare a power cut leaves behind is unlinked,
 * never reused; read-only opens leave it alone.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dumpLog, segmentsToDump } from '../dump/dump.js';
import type { DurabilityPolicy } from '../io/durability.js';
import type { FileIO } from '../io/file-io.js';
import { DelegatingFileIO } from '../io/delegating-file-io.js';
import { Log } from './log.js';
import { describeRecovery } from './recovery-report.js';
import type { LogOptions } from './log-config.js';
import {
  RECORD_HEADER_BYTES,
  checkRecord,
  encodeRecord,
  frameSizeAt,
  recordIdAt,
} from '../record/record.js';
import { LOG_SUFFIX, SPARE_SEGMENT_FILE, segmentFileName } from '../segments/segment-files.js';
import { SimDisk } from '../sim/sim-disk.js';
import { ZerosByFile } from '../testing/zeros-by-file.js';
import { isPowerCut } from '../testing/crash-target.js';
import { errorOf } from '../../test/fixtures/storage-error.js';

const DIR = '/data/log';
const SPARE = path.posix.join(DIR, SPARE_SEGMENT_FILE);
const SEGMENT_BYTES = 1024;

/**
 * The page fill is off (`pageBytes: 0`): in segments smaller than a page it would zero every older
 * record behind the tail, and these tests are about those records, as a power cut that loses a
 * fill's last sectors leaves them. 'fills the rest of a page ...' below runs with the fill on.
 */
function openLog(io: FileIO, durability: DurabilityPolicy = 'always', more: LogOptions = {}): Log {
  return Log.open(DIR, {
    io,
    durability,
    segmentBytes: SEGMENT_BYTES,
    groupMaxDelayMs: 0,
    syncMode: 'inline',
    nowMs: () => 0,
    pageBytes: 0,
    // Retention's spares only: the layout's are tested in spare-layout.sim.test.ts.
    layOutSpares: false,
    ...more,
  });
}

/** Bodies of one size: a reused file's older records then start exactly where new ones do. */
function sameSize(i: number): Buffer {
  return Buffer.from(`same ${String(i).padStart(12, '0')} body`);
}

/** Bodies of three sizes: older and newer record boundaries mostly fall apart. */
function mixed(i: number): Buffer {
  return Buffer.from(`mixed ${i} `.repeat(1 + (i % 3)));
}

interface Reused {
  readonly log: Log;
  /** Appends so far: the offset the next one gets. */
  readonly appended: number;
  /** The reused segment (the active one) and the size of the spare it was made from. */
  readonly logPath: string;
  readonly spareBytes: number;
}

/**
 * A log whose active segment is a reused file: three segments, retention of the first (its file
 * becomes the spare), then appends until a roll takes the spare, then `more` appends into it.
 */
async function reusedLog(
  io: FileIO,
  durability: DurabilityPolicy,
  bodyOf: (i: number) => Buffer,
  more: number,
): Promise<Reused> {
  const log = openLog(io, durability);
  let i = 0;
  while (log.segments().length < 3) await log.append(bodyOf(i++));
  const [first, second] = log.segments();
  expect(log.deleteSegmentsBelow(second!.baseOffset)).toEqual({
    segments: 1,
    bytes: first!.sizeBytes,
  });
  expect(io.exists(SPARE)).toBe(true);
  expect(io.exists(first!.logPath)).toBe(false);
  while (log.segmentsReused === 0) await log.append(bodyOf(i++));
  expect(io.exists(SPARE)).toBe(false);
  for (let k = 0; k < more; k++) await log.append(bodyOf(i++));
  const active = log.segments().at(-1)!;
  expect(active.sizeBytes).toBeLessThan(first!.sizeBytes);
  return { log, appended: i, logPath: active.logPath, spareBytes: first!.sizeBytes };
}

function expectAll(log: Log, bodyOf: (i: number) => Buffer, where: string): void {
  const reader = log.reader(log.startOffset);
  let offset = log.startOffset as number;
  for (let record = reader.next(); record !== null; record = reader.next()) {
    expect(record.offset, where).toBe(offset);
    expect(record.body.equals(bodyOf(offset)), `${where}: offset ${offset}`).toBe(true);
    expect(log.read(offset).body.equals(bodyOf(offset)), where).toBe(true);
    offset++;
  }
  expect(offset, where).toBe(log.endOffset);
  expect(errorOf(() => log.read(log.endOffset)).code, where).toBe('OFFSET_OUT_OF_RANGE');
}

/** The sound record of an older segment that starts at `positionBytes`; null when none does. */
function olderRecordAt(file: Buffer, positionBytes: number, baseOffset: number): number | null {
  const size = frameSizeAt(file, positionBytes, 1 << 20);
  if (typeof size === 'string' || positionBytes + size > file.length) return null;
  if (checkRecord(file, positionBytes, size) !== null) return null;
  const id = recordIdAt(file, positionBytes);
  return id < baseOffset ? id : null;
}

describe('segment reuse: the spare', () => {
  for (const durability of ['always', 'group'] as const) {
    it(`under ${durability}, writes no zeros into a reused segment, where a new one gets a segment of them`, async () => {
      const io = new ZerosByFile(new SimDisk({ seed: 1 }));
      const { log, appended, logPath } = await reusedLog(io, durability, sameSize, 0);
      // Fill the reused segment to the next roll: records of one size end where the older ones did.
      let i = appended;
      const rollsBefore = log.segments().length;
      while (log.segments().length === rollsBefore) await log.append(sameSize(i++));
      expect(io.zeroBytes.get(logPath) ?? 0).toBe(0);
      const fresh = log.segments()[0]!.logPath; // never reused: zero-filled when it was new
      expect(io.zeroBytes.get(fresh)).toBe(SEGMENT_BYTES);
      expectAll(log, sameSize, durability);
    });
  }

  it('under none, unlinks what retention removes, as before', async () => {
    const disk = new SimDisk({ seed: 1 });
    const log = openLog(disk, 'none');
    let i = 0;
    while (log.segments().length < 3) log.appendNoWait(mixed(i++));
    log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
    expect(disk.exists(SPARE)).toBe(false);
    while (log.segments().length < 4) log.appendNoWait(mixed(i++));
    expect(log.segmentsReused).toBe(0);
  });

  it('keeps one spare at most, unlinking the other segments retention removes', async () => {
    const disk = new SimDisk({ seed: 2 });
    const log = openLog(disk);
    let i = 0;
    while (log.segments().length < 5) await log.append(mixed(i++));
    const removed = log.segments().slice(0, 3);
    log.deleteSegmentsBelow(log.segments()[3]!.baseOffset);
    expect(disk.list(DIR).filter((name) => name === SPARE_SEGMENT_FILE)).toHaveLength(1);
    expect(removed.map((segment) => disk.exists(segment.logPath))).toEqual([false, false, false]);
    // The spare is the first removed segment's file: its records are there, ids from 0.
    const spare = disk.readWholeFile(SPARE)!;
    expect(spare.length).toBe(removed[0]!.sizeBytes);
    expect(recordIdAt(spare, 0)).toBe(0);
  });

  for (const [from, to] of [
    [1, 4],
    [4, 1],
  ] as const) {
    it(`does not keep a segment made under a segment size ${from > to ? 'larger' : 'smaller'} than the log's now`, async () => {
      const disk = new SimDisk({ seed: 3 });
      const sized = (times: number) => ({
        segmentBytes: times * SEGMENT_BYTES,
        maxRecordBytes: 100,
      });
      const before = openLog(disk, 'always', sized(from));
      let i = 0;
      while (before.segments().length < 3) await before.append(mixed(i++));
      await before.close();
      const after = openLog(disk, 'always', sized(to));
      after.deleteSegmentsBelow(after.segments()[1]!.baseOffset);
      expect(disk.exists(SPARE)).toBe(false);
      while (after.segments().length < 4) await after.append(mixed(i++));
      expect(after.segmentsReused).toBe(0);
      expectAll(after, mixed, `${from} KiB segments, then ${to} KiB`);
    });
  }

  it('removes the spare when the log closes, and a clean close leaves the reused segment its records only', async () => {
    const disk = new SimDisk({ seed: 4 });
    const { log, appended, logPath } = await reusedLog(disk, 'always', mixed, 3);
    log.deleteSegmentsBelow(log.segments()[1]!.baseOffset); // a second spare, for close to remove
    expect(disk.exists(SPARE)).toBe(true);
    const dataBytes = log.segments().at(-1)!.sizeBytes;
    await log.close();
    expect(disk.exists(SPARE)).toBe(false);
    expect(disk.readWholeFile(logPath)!.length).toBe(dataBytes);
    const reopened = openLog(disk.crash());
    expect(reopened.recovery).toMatchObject({
      startedFrom: 'recovery-point',
      scannedBytes: 0,
      truncation: null,
    });
    expect(reopened.endOffset).toBe(appended);
    expectAll(reopened, mixed, 'after a clean close');
  });

  it('is left alone by a read-only open, and unlinked by the next writable one', async () => {
    const disk = new SimDisk({ seed: 5 });
    const log = openLog(disk);
    let i = 0;
    while (log.segments().length < 3) await log.append(mixed(i++));
    log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
    const crashed = disk.crash();
    const reader = Log.open(DIR, { io: crashed, readOnly: true });
    expect(reader.recovery.spareRemoved).toBe(false);
    expect(crashed.exists(SPARE)).toBe(true);
    await reader.close();
    const writer = openLog(crashed);
    expect(writer.recovery.spareRemoved).toBe(true);
    expect(describeRecovery(writer.recovery)).toContain('removed the spare segment file');
    expect(crashed.exists(SPARE)).toBe(false);
    while (writer.segments().length < 4) await writer.append(mixed(i++));
    expect(writer.segmentsReused).toBe(0); // a spare found at open is never reused
    expectAll(writer, mixed, 'after the reopen');
  });
});

describe('segment reuse: the page fill', () => {
  const PAGE = 512;

  for (const durability of ['always', 'group'] as const) {
    it(`under ${durability}, fills the rest of the page an append first reaches with zeros and leaves the older records after it`, async () => {
      const disk = new SimDisk({ seed: 12 });
      const io = new DelegatingFileIO(disk);
      const log = openLog(io, durability, { pageBytes: PAGE });
      let i = 0;
      while (log.segments().length < 3) await log.append(mixed(i++));
      log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
      while (log.segmentsReused === 0) await log.append(mixed(i++));
      await log.append(mixed(i++));
      const active = log.segments().at(-1)!;
      const baseOffset = active.baseOffset;
      const file = disk.readWholeFile(active.logPath)!;
      const tail = active.sizeBytes;
      const pageEnd = Math.min(Math.ceil(tail / PAGE) * PAGE, file.length);
      expect(tail).toBeLessThan(PAGE); // the test's appends stay in the first page
      expect(log.extraWriteBytes).toBeGreaterThan(0);
      expect(file.subarray(tail, pageEnd).every((byte) => byte === 0)).toBe(true);
      // The fill stops at the page's end: an older segment's records lie after it.
      const olderAfterPage = Array.from(
        { length: file.length - pageEnd - RECORD_HEADER_BYTES },
        (_, k) => olderRecordAt(file, pageEnd + k, baseOffset),
      ).some((id) => id !== null);
      expect(olderAfterPage).toBe(true);
      const reopened = openLog(disk.crash(), durability, { pageBytes: PAGE });
      expect(reopened.endOffset).toBe(i);
      expect(reopened.recovery.warnings).toEqual([]);
      expectAll(reopened, mixed, `${durability}, the fill on`);
    });
  }

  it('reports the older records after a fill as older records, not damage, however small the record limit', async () => {
    // A fill of up to a page (4096) past the last record, a record limit (256) well below it:
    // the older records start after the zeros, further than one record limit from the cut.
    const options = { pageBytes: 4096, segmentBytes: 16384, maxRecordBytes: 256 };
    const disk = new SimDisk({ seed: 14 });
    const log = openLog(disk, 'always', options);
    let i = 0;
    while (log.segments().length < 3) await log.append(mixed(i++));
    log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
    while (log.segmentsReused === 0) await log.append(mixed(i++));
    for (let k = 0; k < 7; k++) await log.append(mixed(i++));
    const active = log.segments().at(-1)!;
    const reopened = openLog(disk.crash(), 'always', options);
    expect(reopened.endOffset).toBe(i);
    expect(reopened.recovery.truncation).toMatchObject({
      positionBytes: active.sizeBytes,
      discardedBytes: 0,
      discardedRecords: 0,
      reason: "an older segment's records follow",
    });
    expect(reopened.recovery.warnings).toEqual([]);
    expectAll(reopened, mixed, 'after the fill');
  });

  it('fills nothing where the log grows its file (none: no preallocation, no reuse)', async () => {
    const log = openLog(new SimDisk({ seed: 13 }), 'none', { pageBytes: PAGE });
    for (let i = 0; i < 40; i++) await log.append(mixed(i));
    expect(log.segments().length).toBeGreaterThan(1);
    expect(log.extraWriteBytes).toBe(0);
  });
});

describe('segment reuse: a power cut inside a reused segment', () => {
  for (const durability of ['always', 'group'] as const) {
    it(`under ${durability}, never serves the older record that starts exactly where the next one would`, async () => {
      const disk = new SimDisk({ seed: 11 });
      const { log, appended, logPath, spareBytes } = await reusedLog(disk, durability, sameSize, 4);
      const baseOffset = log.segments().at(-1)!.baseOffset;
      const dataBytes = log.segments().at(-1)!.sizeBytes;
      const crashed = disk.crash();
      // What the reopen finds at the next record's position: an older record, whole and sound.
      const file = crashed.readWholeFile(logPath)!;
      expect(file.length).toBe(spareBytes);
      const recordBytes = encodeRecord(0, sameSize(0)).length;
      expect(olderRecordAt(file, dataBytes, baseOffset)).toBe(dataBytes / recordBytes);
      const reopened = openLog(crashed, durability);
      expect(reopened.endOffset).toBe(appended);
      expect(reopened.recovery.truncation).toEqual({
        segment: logPath,
        positionBytes: dataBytes,
        discardedBytes: 0,
        discardedRecords: 0,
        zeroTailBytes: 0,
        recycledBytes: spareBytes - dataBytes,
        reason: "an older segment's records follow",
      });
      expect(reopened.recovery.warnings).toEqual([]);
      expect(describeRecovery(reopened.recovery)).toContain(
        'older records the recycled file held (not damage)',
      );
      expectAll(reopened, sameSize, durability);
      // The cut is durable: later appends and another power cut bring no older record back.
      for (let i = appended; i < appended + 3; i++) await reopened.append(sameSize(i));
      expectAll(openLog(crashed.crash(), durability), sameSize, 'after another power cut');
    });
  }

  it('never serves an older record of another size behind the end either', async () => {
    for (let more = 1; more <= 12; more++) {
      const disk = new SimDisk({ seed: 12 + more });
      const { appended } = await reusedLog(disk, 'always', mixed, more);
      const reopened = openLog(disk.crash());
      const where = `${more} records in the reused segment`;
      expect(reopened.endOffset, where).toBe(appended);
      const cut = reopened.recovery.truncation!;
      expect(cut.discardedBytes, where).toBe(0);
      expect(cut.recycledBytes, where).toBeGreaterThan(0);
      expectAll(reopened, mixed, where);
    }
  });

  for (const [shape, bodyOf] of [
    ['lined up', sameSize],
    ['of other sizes', mixed],
  ] as const) {
    it(`cuts a torn record written over older records ${shape}, and reports it as torn`, async () => {
      const disk = new SimDisk({ seed: 21 });
      const { log, appended, logPath } = await reusedLog(disk, 'always', bodyOf, 5);
      const dataBytes = log.segments().at(-1)!.sizeBytes;
      // The next record's first 20 bytes reached the device, its rest did not.
      const next = encodeRecord(appended, bodyOf(appended));
      const handle = disk.open(logPath, { create: false });
      disk.write(handle, next, 0, 20, dataBytes);
      disk.fdatasync(handle);
      disk.close(handle);
      const reopened = openLog(disk.crash());
      expect(reopened.endOffset).toBe(appended);
      expect(reopened.recovery.truncation).toMatchObject({
        positionBytes: dataBytes,
        discardedBytes: next.length,
        discardedRecords: 1,
        reason: 'crc mismatch',
      });
      expect(reopened.recovery.truncation!.recycledBytes).toBeGreaterThan(0);
      expectAll(reopened, bodyOf, shape);
      await reopened.append(bodyOf(appended));
      expectAll(reopened, bodyOf, `${shape}, appended again`);
    });
  }

  it('never brings back a record the recovery cut, once later appends end where it began', async () => {
    const disk = new SimDisk({ seed: 25 });
    const { log, appended, logPath } = await reusedLog(disk, 'always', sameSize, 3);
    const dataBytes = log.segments().at(-1)!.sizeBytes;
    // A crash kept two unsynced records: the first torn (a byte of its body lost), the second
    // whole, with a body never acknowledged.
    const torn = encodeRecord(appended, sameSize(appended));
    torn.writeUInt8(torn.readUInt8(torn.length - 1) ^ 0xff, torn.length - 1);
    const ghost = encodeRecord(appended + 1, Buffer.alloc(sameSize(0).length, 0x67));
    const handle = disk.open(logPath, { create: false });
    disk.write(handle, Buffer.concat([torn, ghost]), 0, torn.length + ghost.length, dataBytes);
    disk.fdatasync(handle);
    disk.close(handle);
    const crashed = disk.crash();
    const reopened = openLog(crashed);
    expect(reopened.endOffset).toBe(appended);
    expect(reopened.recovery.truncation).toMatchObject({
      discardedRecords: 2,
      discardedBytes: torn.length * 2,
    });
    // The next append fills exactly the torn record's place; the power fails before another.
    await reopened.append(sameSize(appended));
    const again = openLog(crashed.crash());
    expect(again.endOffset).toBe(appended + 1);
    expectAll(again, sameSize, 'after the second power cut');
  });

  it('opens a reused segment that no record reached yet as empty', async () => {
    const disk = new SimDisk({ seed: 31 });
    const log = openLog(disk, 'group');
    let i = 0;
    while (log.segments().length < 3) await log.append(sameSize(i++));
    log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
    // Under group the append that rolls waits for its group's write: the power fails first.
    while (log.segmentsReused === 0) log.appendNoWait(sameSize(i++));
    // Not log.segments(): it would write the pending record.
    const logPath = path.posix.join(DIR, segmentFileName(i - 1, LOG_SUFFIX));
    const spareBytes = disk.readWholeFile(logPath)!.length;
    const reopened = openLog(disk.crash(), 'group');
    expect(reopened.endOffset).toBe(i - 1);
    expect(reopened.recovery.truncation).toMatchObject({
      segment: logPath,
      positionBytes: 0,
      discardedBytes: 0,
      recycledBytes: spareBytes,
    });
    expectAll(reopened, sameSize, 'empty reused segment');
  });

  it('is dumped with the older records as one recycled entry, which --verify does not count', async () => {
    const disk = new SimDisk({ seed: 41 });
    const { log, logPath, spareBytes } = await reusedLog(disk, 'always', mixed, 6);
    const dataBytes = log.segments().at(-1)!.sizeBytes;
    const crashed = disk.crash();
    const options = { records: true, index: true, timeIndex: false, verify: true };
    const entries = [...dumpLog(crashed, segmentsToDump(crashed, DIR), options)];
    const problems = entries.filter(
      (entry) => ('valid' in entry && entry.valid === false) || entry.type === 'chain',
    );
    expect(problems).toEqual([]);
    expect(entries.filter((entry) => entry.type === 'recycled')).toEqual([
      {
        type: 'recycled',
        segment: path.posix.basename(logPath),
        position: dataBytes,
        sizeBytes: spareBytes - dataBytes,
        olderRecordPosition: expect.any(Number),
      },
    ]);
  });

  it('reopens whole whichever call of retention, roll or append the power fails at', async () => {
    for (let nth = 1; nth <= 60; nth++) {
      for (const seed of [1, 2, 3]) {
        const disk = new SimDisk({ seed });
        const log = openLog(disk);
        let i = 0;
        let acked = 0;
        while (log.segments().length < 3) acked = (await log.append(mixed(i++))) + 1;
        disk.injectFault({ kind: 'power-cut', nth });
        try {
          log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
          for (let k = 0; k < 60; k++) acked = (await log.append(mixed(i++))) + 1;
        } catch (error) {
          if (!isPowerCut(error)) throw error;
        }
        const where = `seed ${seed}, power cut at call ${nth}`;
        const crashed = disk.crash();
        const reopened = openLog(crashed);
        expect(crashed.exists(SPARE), where).toBe(false);
        expect(reopened.endOffset, where).toBeGreaterThanOrEqual(acked);
        expectAll(reopened, mixed, where);
        while (reopened.segmentsReused === 0) {
          reopened.deleteSegmentsBelow(reopened.segments().at(-1)!.baseOffset);
          await reopened.append(mixed(reopened.endOffset));
        }
        expectAll(openLog(crashed.crash()), mixed, `${where}, reused after the reopen`);
      }
    }
  });
});
