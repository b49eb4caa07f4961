/**
 * The log on a simulated disk: failed fsyncs (transient and sticky), a disk that fills up
 * part-way through a record, too many open files when a segment is opened, and power cuts right
 * after a new log is made. Each failure must surface as a typed error, fence the log until it is
 * reopened, leave no partial record that recovery would serve, and never let recovery present
 * data whose sync failed; the reopened log must work.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DurabilityPolicy } from '../io/durability.js';
import type { FileHandle } from '../io/file-io.js';
import { ioError } from '../errors.js';
import { DelegatingFileIO } from '../io/delegating-file-io.js';
import { Log } from './log.js';
import type { LogOptions } from './log-config.js';
import { readRecordLimit } from './record-limit.js';
import {
  type RecoveryPoint,
  readRecoveryPoint,
  writeRecoveryPoint,
} from '../segments/recovery-point.js';
import { RECOVERY_POINT_FILE } from '../segments/segment-files.js';
import { SimDisk, SimPowerCutError, type SimFault } from '../sim/sim-disk.js';
import { PoolIO, SlowPoolIO } from '../testing/pool-io.js';
import { asOffset } from '../units.js';
import { errorOf, rejectionOf } from '../../test/fixtures/storage-error.js';

const DIR = '/data/log';
const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);
const FIRST_SEGMENT = path.posix.join(DIR, `${'0'.repeat(20)}.log`);

/**
 * Inline syncs unless a test asks for the thread pool: a failed sync then throws from the call
 * that caused it, so each test can say which call a fault hits.
 */
function openLog(disk: SimDisk, durability: DurabilityPolicy = 'always'): Log {
  const options: LogOptions = {
    io: disk,
    durability,
    segmentBytes: 1024,
    groupMaxDelayMs: 0,
    syncMode: 'inline',
  };
  return Log.open(DIR, { ...options, nowMs: () => 0 });
}

/** The next fdatasync of the first segment fails with EIO. */
function failingSync(sticky = false): SimFault {
  return { kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO', sticky, file: FIRST_SEGMENT };
}

function body(i: number): Buffer {
  return Buffer.from(`message ${i} `.repeat(1 + (i % 3)));
}

async function appendAll(log: Log, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await log.append(body(i));
}

function expectBodies(log: Log, from: number, count: number): void {
  for (let i = from; i < from + count; i++) expect(log.read(i).body.equals(body(i))).toBe(true);
}

/**
 * Reads every record from the log's start, one after another: a damaged record that recovery
 * trusted throws CORRUPT_RECORD, and one it skipped leaves the count short.
 */
function expectReadableFromStart(log: Log, where: string): void {
  const reader = log.reader(log.startOffset);
  let read = 0;
  while (reader.next() !== null) read++;
  expect(read, where).toBe(log.endOffset - log.startOffset);
}

describe('a new log on a simulated disk', () => {
  it('keeps its directory and first acknowledged append through a power cut', async () => {
    for (const seed of SEEDS) {
      const disk = new SimDisk({ seed });
      const log = openLog(disk);
      await log.append(body(0));
      const reopened = openLog(disk.crash());
      expect(reopened.endOffset, `seed ${seed}`).toBe(1);
      expectBodies(reopened, 0, 1);
    }
  });
});

describe('retention cut short by a power cut', () => {
  it('leaves the log without a prefix of segments, never a hole a reader stops at', () => {
    for (const seed of SEEDS) {
      for (let nth = 1; nth <= 12; nth++) {
        const disk = new SimDisk({ seed });
        const log = openLog(disk);
        for (let i = 0; i < 100; i++) log.appendNoWait(body(i));
        disk.injectFault({ kind: 'power-cut', nth });
        expect(() => log.deleteSegmentsBelow(80)).toThrow(SimPowerCutError);
        const reopened = openLog(disk.crash());
        const where = `seed ${seed}, power cut at call ${nth}`;
        expectReadableFromStart(reopened, where);
        expect(reopened.endOffset, where).toBe(100);
      }
    }
  });
});

describe('retention', () => {
  /** Records, in order, the calls that remove a file's names and those that close it. */
  class RemovalCalls extends DelegatingFileIO {
    readonly calls: string[] = [];
    readonly #paths = new Map<FileHandle, string>();
    override open(filePath: string, options: { create: boolean }): FileHandle {
      const handle = super.open(filePath, options);
      this.#paths.set(handle, filePath);
      return handle;
    }
    override close(handle: FileHandle): void {
      this.calls.push(`close ${this.#paths.get(handle)}`);
      super.close(handle);
    }
    override async closeAsync(handle: FileHandle): Promise<void> {
      this.calls.push(`closeAsync ${this.#paths.get(handle)}`);
      // Later than a microtask, as a real close on the thread pool comes back.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await super.closeAsync(handle);
    }
    override unlink(filePath: string): void {
      this.calls.push(`unlink ${filePath}`);
      super.unlink(filePath);
    }
    override rename(fromPath: string, toPath: string): void {
      this.calls.push(`rename ${fromPath}`);
      super.rename(fromPath, toPath);
    }
  }

  // Closing a file whose names are gone frees its blocks (21-25 ms for 64 MiB here): on the
  // thread pool, not in an unlink on the event loop.
  for (const durability of ['none', 'always'] as const) {
    it(`under ${durability}, closes a removed segment's log file on the thread pool once its names are gone; removalsSettled and close wait for it`, async () => {
      const disk = new SimDisk({ seed: 3 });
      const io = new RemovalCalls(disk);
      const log = Log.open(DIR, { io, durability, segmentBytes: 1024, syncMode: 'inline' });
      for (let i = 0; log.segments().length < 4; i++) log.appendNoWait(body(i));
      const removed = log
        .segments()
        .slice(0, 3)
        .map((segment) => segment.logPath);
      io.calls.length = 0;
      const handlesBefore = disk.openHandles;
      expect(log.deleteSegmentsBelow(log.segments()[3]!.baseOffset).segments).toBe(3);
      // The names are gone, the files still open until their closes on the pool come back.
      expect(removed.some((logPath) => disk.exists(logPath))).toBe(false);
      expect(disk.openHandles).toBe(handlesBefore);
      await log.removalsSettled();
      // Under always a layout of the next spare, stopped by retention's spare, may close too.
      expect(disk.openHandles).toBeLessThanOrEqual(handlesBefore - 3);
      // Under none the newest removed segment's roll sync still runs: its file closes after it.
      await log.close();
      for (const logPath of removed) {
        // Unlinked, or under always the first renamed to the spare.
        const gone = io.calls.findIndex(
          (call) => /^(unlink|rename) /.test(call) && call.endsWith(` ${logPath}`),
        );
        expect(gone, logPath).toBeGreaterThanOrEqual(0);
        expect(io.calls.indexOf(`closeAsync ${logPath}`), logPath).toBeGreaterThan(gone);
        expect(io.calls, logPath).not.toContain(`close ${logPath}`);
      }
      expect(disk.openHandles).toBe(0);
    });
  }
});

describe('retention whose removal fails', () => {
  /** A log of several segments; returns their base offsets. */
  function logOfSegments(disk: SimDisk): { log: Log; bases: number[] } {
    const log = openLog(disk);
    for (let i = 0; i < 100; i++) log.appendNoWait(body(i));
    const bases = log.segments().map((segment) => segment.baseOffset);
    expect(bases.length).toBeGreaterThan(3);
    return { log, bases };
  }

  function expectWholeFromStart(log: Log, where: string): void {
    expectReadableFromStart(log, where);
    expect(log.endOffset, where).toBe(100);
  }

  // Crash-loop seed 616982201 (log-queue, group): the unlink of the oldest segment failed,
  // the log forgot the segment all the same, and the next retention removed the one after it.
  for (const call of ['unlink', 'fsyncDir'] as const) {
    it(`removes the segment whose ${call} failed before any later one, so no hole opens`, async () => {
      // Seeds enough for crashes that keep a later unlink and drop an earlier pending one.
      for (let seed = 1; seed <= 50; seed++) {
        for (let nth = 1; nth <= 12; nth++) {
          const disk = new SimDisk({ seed });
          const { log, bases } = logOfSegments(disk);
          disk.injectFault({ kind: 'error', call, nth: 1, errno: 'EIO' });
          expect(errorOf(() => log.deleteSegmentsBelow(bases[1]!)).code).toBe('IO_ERROR');
          // The next retention, cut short by a power cut at each of its calls in turn.
          disk.injectFault({ kind: 'power-cut', nth });
          const where = `seed ${seed}, ${call} failed, power cut at call ${nth}`;
          try {
            expect(log.deleteSegmentsBelow(bases[3]!).segments, where).toBe(2);
            await log.close();
          } catch (error) {
            if (!(error instanceof SimPowerCutError)) throw error;
          }
          expectWholeFromStart(openLog(disk.crash()), where);
        }
      }
    });
  }

  it('opens whole in the same process after the unlink failed, and removes it next time', async () => {
    const disk = new SimDisk({ seed: 1 });
    const { log, bases } = logOfSegments(disk);
    disk.injectFault({ kind: 'error', call: 'unlink', nth: 1, errno: 'EIO' });
    expect(errorOf(() => log.deleteSegmentsBelow(bases[1]!)).code).toBe('IO_ERROR');
    expect(log.startOffset).toBe(bases[1]);
    expect(log.deleteSegmentsBelow(bases[2]!).segments).toBe(1);
    await log.close();
    const reopened = openLog(disk);
    expect(reopened.startOffset).toBe(bases[2]);
    expectWholeFromStart(reopened, 'reopened');
  });
});

/** A log under none with an index entry every 100 bytes, its times from the test's clock. */
function openTimedNone(on: SimDisk, clock: { nowMs: number }): Log {
  return Log.open(DIR, {
    io: on,
    durability: 'none',
    segmentBytes: 1024,
    indexIntervalBytes: 100,
    nowMs: () => clock.nowMs,
  });
}

/** A log under none whose thread-pool syncs run only when a timer fires (SlowPoolIO). */
function openSlowSyncNone(disk: SimDisk): Log {
  return Log.open(DIR, {
    io: new SlowPoolIO(disk),
    durability: 'none',
    segmentBytes: 1024,
    nowMs: () => 0,
  });
}

/**
 * A log under none that rolled once, its roll's sync held back by a timer, and retention then
 * removed the sealed segment, which the recovery point on the device names. `next`: the next
 * body's index.
 */
function retentionOvertakesRollSync(disk: SimDisk): { log: Log; next: number } {
  const log = openSlowSyncNone(disk);
  let next = 0;
  while (log.segments().length < 2) log.appendNoWait(body(next++));
  log.deleteSegmentsBelow(log.segments()[1]!.baseOffset);
  return { log, next };
}

describe('under none, where rolls do not sync', () => {
  for (const how of ['flush', 'close'] as const) {
    it(`makes every segment sealed since the last save durable on ${how}, indexes included`, async () => {
      for (const seed of SEEDS.slice(0, 10)) {
        const disk = new SimDisk({ seed });
        const clock = { nowMs: 1_000 };
        const open = (on: SimDisk) => openTimedNone(on, clock);
        const log = open(disk);
        for (let i = 0; i < 60; i++, clock.nowMs += 10) log.appendNoWait(body(i));
        expect(log.segments().length).toBeGreaterThan(2);
        // The time index is no cache: the log holds no times, a lost entry comes back with the open time.
        const times = [1_100, 1_250, 1_400, 1_550];
        const offsetsForTimes = times.map((t) => log.offsetForTime(t));
        await log[how]();
        clock.nowMs = 50_000;
        const recovered = open(disk.crash());
        expect(recovered.endOffset, `seed ${seed}`).toBe(60);
        expectBodies(recovered, 0, 60);
        expect(
          times.map((t) => recovered.offsetForTime(t)),
          `seed ${seed}`,
        ).toEqual(offsetsForTimes);
      }
    });
  }

  it("makes a sealed segment's indexes durable before the point its background sync saves after it", async () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const disk = new SimDisk({ seed });
      const clock = { nowMs: 1_000 };
      const open = (on: SimDisk) => openTimedNone(on, clock);
      const log = open(disk);
      for (let i = 0; log.segments().length < 3; i++, clock.nowMs += 10) {
        log.appendNoWait(body(i));
        await new Promise((resolve) => setImmediate(resolve)); // each roll's sync ends
      }
      const times = [1_100, 1_250, 1_400];
      const offsetsForTimes = times.map((t) => log.offsetForTime(t));
      expect(log.segments()[2]!.baseOffset).toBeGreaterThan(offsetsForTimes.at(-1)!);
      clock.nowMs = 50_000;
      const recovered = open(disk.crash());
      expect(
        times.map((t) => recovered.offsetForTime(t)),
        `seed ${seed}`,
      ).toEqual(offsetsForTimes);
    }
  });

  it("saves no point of its own at a roll: every point under none, opening's too, says its segment may be sealed", async () => {
    const disk = new SimDisk({ seed: 3 });
    const saved: { baseOffset: number; sealing: boolean }[] = [];
    class Points extends DelegatingFileIO {
      override rename(fromPath: string, toPath: string): void {
        super.rename(fromPath, toPath);
        if (path.posix.basename(toPath) !== RECOVERY_POINT_FILE) return;
        const point = readRecoveryPoint(disk, DIR) as RecoveryPoint;
        saved.push({ baseOffset: point.segmentBaseOffset, sealing: point.sealing === true });
      }
    }
    const log = Log.open(DIR, { io: new Points(disk), durability: 'none', segmentBytes: 1024 });
    for (let i = 0; log.segments().length < 4; i++) {
      log.appendNoWait(body(i));
      await new Promise((resolve) => setImmediate(resolve)); // each roll's sync ends before the next
    }
    const bases = log.segments().map((segment) => segment.baseOffset);
    // Opening's, then one as each roll's sync ends, at the start of the segment it made.
    expect(saved).toEqual(bases.map((baseOffset) => ({ baseOffset, sealing: true })));
    await log.close();
  });

  it('creates its files, at opening, rolls and recovery points, without truncating them (ext4 writes a file truncated to 0 out when it is closed)', async () => {
    const disk = new SimDisk({ seed: 4 });
    const truncated: string[] = [];
    class Truncates extends DelegatingFileIO {
      readonly #paths = new Map<FileHandle, string>();
      override open(filePath: string, options: { create: boolean }): FileHandle {
        const handle = super.open(filePath, options);
        this.#paths.set(handle, path.posix.basename(filePath));
        return handle;
      }
      override truncate(handle: FileHandle, sizeBytes: number): void {
        truncated.push(`${this.#paths.get(handle)} to ${sizeBytes}`);
        super.truncate(handle, sizeBytes);
      }
    }
    const log = Log.open(DIR, { io: new Truncates(disk), durability: 'none', segmentBytes: 1024 });
    for (let i = 0; log.segments().length < 4; i++) {
      log.appendNoWait(body(i));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(truncated).toEqual([]);
    await log.close();
  });

  for (const left of ['new', 'closed under always', 'closed under none', 'crashed'] as const) {
    it(`opens after a power cut between a roll and its sync, the log ${left} before`, async () => {
      for (const seed of SEEDS) {
        let disk = new SimDisk({ seed });
        if (left !== 'new') {
          const before = openLog(disk, left === 'closed under always' ? 'always' : 'none');
          for (let i = 0; i < 3; i++) before.appendNoWait(body(i));
          if (left === 'crashed') disk = disk.crash();
          else await before.close();
        }
        // The roll's sync waits for a timer: the power fails before it runs.
        const log = openSlowSyncNone(disk);
        for (let i = log.endOffset; log.segments().length < 2; i++) log.appendNoWait(body(i));
        const recovered = openLog(disk.crash(), 'none');
        expectReadableFromStart(recovered, `seed ${seed}`);
      }
    });
  }

  it('opens after a power cut in a roll made once retention removed the segment whose sync was still running', async () => {
    for (const seed of SEEDS) {
      const disk = new SimDisk({ seed });
      const { log, next } = retentionOvertakesRollSync(disk);
      for (let i = next; log.segments().length < 2; i++) log.appendNoWait(body(i));
      const recovered = openLog(disk.crash(), 'none');
      expectReadableFromStart(recovered, `seed ${seed}`);
    }
  });

  // Retention ends the roll's sync's say (releaseForRemoval): until the next roll or flush the
  // point on the device names the removed segment. Taken as no point, that open scanned the
  // active segment whole and kept what a power cut tore in it between good records.
  it('cuts a power cut’s tear at the first bad record while the point names a segment retention removed', async () => {
    let tornTailsCut = 0;
    for (const seed of SEEDS) {
      const disk = new SimDisk({ seed });
      const { log, next } = retentionOvertakesRollSync(disk);
      for (let i = next; i < next + 20; i++) log.appendNoWait(body(i));
      expect(log.segments()).toHaveLength(1);
      const recovered = openLog(disk.crash(), 'none');
      const { startedFrom, findings, truncation } = recovered.recovery;
      expect(startedFrom, `seed ${seed}`).toBe('recovery-point');
      expect(findings, `seed ${seed}`).toEqual([]);
      if (truncation !== null && truncation.discardedBytes > 0) tornTailsCut++;
      expectReadableFromStart(recovered, `seed ${seed}`);
    }
    expect(tornTailsCut).toBeGreaterThan(0);
  });

  it('checks every segment after a recovery point whose segment retention removed', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const disk = new SimDisk({ seed });
      const log = openLog(disk, 'none');
      for (let i = 0; i < 10; i++) log.appendNoWait(body(i));
      log.flush(); // the recovery point is in the first segment
      for (let i = 10; i < 60; i++) log.appendNoWait(body(i)); // rolls that sync nothing
      log.deleteSegmentsBelow(log.segments()[1]!.baseOffset); // the point's segment goes
      const recovered = openLog(disk.crash(), 'none');
      expectReadableFromStart(recovered, `seed ${seed}`);
    }
  });

  it('leaves no hole between segments when the power fails during a flush', async () => {
    for (const seed of SEEDS.slice(0, 10)) {
      for (let nth = 1; nth <= 24; nth++) {
        const disk = new SimDisk({ seed });
        const log = openLog(disk, 'none');
        for (let i = 0; i < 80; i++) log.appendNoWait(body(i)); // rolls that sync nothing
        disk.injectFault({ kind: 'power-cut', nth }); // at a call of the flush, or after it
        try {
          await log.flush();
        } catch (error) {
          if (!(error instanceof SimPowerCutError)) throw error;
        }
        const recovered = openLog(disk.crash(), 'none');
        const where = `seed ${seed}, cut at call ${nth}`;
        expectReadableFromStart(recovered, where);
      }
    }
  });

  it('saves a recovery point when opening found none, so later rolls are checked', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      for (let nth = 1; nth <= 20; nth++) {
        const disk = new SimDisk({ seed });
        disk.injectFault({ kind: 'power-cut', nth }); // while the new log is being made
        expect(() => openLog(disk, 'none')).toThrow(SimPowerCutError);
        const afterCut = disk.crash();
        const log = openLog(afterCut, 'none');
        for (let i = 0; i < 60; i++) log.appendNoWait(body(i)); // rolls that sync nothing
        const recovered = openLog(afterCut.crash(), 'none');
        expectReadableFromStart(recovered, `seed ${seed}, cut at call ${nth}`);
      }
    }
  });

  for (const failing of [
    'fdatasync of its temporary file',
    'directory fsync after its rename',
  ] as const) {
    it(`keeps what a flush synced when saving its recovery point fails (${failing})`, async () => {
      for (const seed of SEEDS.slice(0, 20)) {
        const disk = new SimDisk({ seed });
        const log = openLog(disk, 'none');
        for (let i = 0; log.segments().length < 2; i++) log.appendNoWait(body(i));
        const end = log.endOffset;
        const fault =
          failing === 'directory fsync after its rename'
            ? ({ kind: 'error', call: 'fsyncDir', nth: 1, errno: 'EIO' } as const)
            : ({
                kind: 'error',
                call: 'fdatasync',
                nth: 1,
                errno: 'EIO',
                file: path.posix.join(DIR, 'recovery-point.tmp'),
              } as const);
        disk.injectFault(fault);
        expect((await rejectionOf(log.flush())).code).toBe('IO_ERROR');
        // The segments were synced before the point failed: the fence keeps them, whichever
        // recovery point the device ends up with.
        expect(log.syncedEndOffset, `seed ${seed}`).toBe(end);
        expect(log.endOffset).toBe(end);
        const recovered = openLog(disk.crash(), 'none');
        expect(recovered.endOffset, `seed ${seed}`).toBe(end);
        expectBodies(recovered, 0, end);
      }
    });
  }
});

describe('a failed fsync', () => {
  it('fails the append, fences the log until reopened, and is never served again', async () => {
    const disk = new SimDisk({ seed: 1 });
    const log = openLog(disk);
    await appendAll(log, 0, 3);
    disk.injectFault(failingSync());
    const failed = errorOf(() => log.appendNoWait(body(3)));
    expect(failed.code).toBe('IO_ERROR');
    expect(failed.context).toMatchObject({ file: FIRST_SEGMENT, reason: 'EIO' });
    expect(errorOf(() => log.appendNoWait(body(4))).code).toBe('LOG_FENCED');
    await expect(log.acknowledged(asOffset(0))).rejects.toMatchObject({ code: 'LOG_FENCED' });
    expect(log.endOffset).toBe(3);
    expect(errorOf(() => log.read(3)).code).toBe('OFFSET_OUT_OF_RANGE');
    await log.close();
    // Same disk, no crash: the page cache still shows the record the failed sync covered.
    const reopened = openLog(disk);
    expect(reopened.endOffset).toBe(3);
    expectBodies(reopened, 0, 3);
    expect(await reopened.append(body(5))).toBe(3);
    await reopened.close();
  });

  it('never leaves a record whose sync failed among acknowledged ones after a crash', async () => {
    for (const seed of SEEDS) {
      const disk = new SimDisk({ seed });
      const log = openLog(disk);
      await appendAll(log, 0, 2);
      disk.injectFault(failingSync());
      expect(errorOf(() => log.appendNoWait(body(99))).code).toBe('IO_ERROR');
      await log.close();
      const reopened = openLog(disk);
      await appendAll(reopened, 2, 2);
      const recovered = openLog(disk.crash());
      expect(recovered.endOffset, `seed ${seed}`).toBe(4);
      expectBodies(recovered, 0, 4);
    }
  });

  it('keeps failing with typed errors when sticky; opens once the disk is back', async () => {
    const disk = new SimDisk({ seed: 2 });
    const log = openLog(disk);
    await appendAll(log, 0, 2);
    disk.injectFault(failingSync(true));
    expect(errorOf(() => log.appendNoWait(body(2))).code).toBe('IO_ERROR');
    await log.close();
    const reopening = errorOf(() => openLog(disk).appendNoWait(body(2)));
    expect(reopening.code).toBe('IO_ERROR');
    expect(reopening.context.reason).toBe('EIO');
    const recovered = openLog(disk.crash());
    // The reopened log wrote record 2 before its sync failed: never acknowledged, it may
    // survive the power cut as any unacknowledged write may, whole or not at all.
    const end = recovered.endOffset;
    expect([2, 3]).toContain(end);
    expectBodies(recovered, 0, end);
    expect(await recovered.append(body(end))).toBe(end);
  });

  it('under none, syncs each segment it seals, so a failed flush cuts back only to the last roll', async () => {
    const disk = new SimDisk({ seed: 4 });
    const log = openLog(disk, 'none');
    for (let i = 0; i < 5; i++) log.appendNoWait(body(i));
    log.flush();
    for (let i = 5; log.segments().length < 3; i++) log.appendNoWait(body(i));
    const third = log.segments()[2]!.baseOffset;
    // The sealed segment's sync runs in the background (here it settles at once).
    await new Promise((resolve) => setImmediate(resolve));
    expect(log.syncedEndOffset).toBe(third);
    for (let i = third; i < third + 3; i++) log.appendNoWait(body(i));
    const reader = log.reader(log.segments()[1]!.baseOffset);
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    expect((await rejectionOf(log.flush())).code).toBe('IO_ERROR');
    expect(log.endOffset).toBe(third);
    expect(log.segments().length).toBe(3);
    expect(errorOf(() => log.read(third)).code).toBe('OFFSET_OUT_OF_RANGE');
    // The sealed segments are whole on the device: a reader in them goes on to the cut.
    for (let offset = log.segments()[1]!.baseOffset; offset < third; offset++) {
      expect(reader.next()?.offset).toBe(offset);
    }
    expectBodies(log, 0, third);
    await log.close();
    // A power cut now: nothing the failed flush covered comes back, every sealed record does.
    const reopened = openLog(disk.crash(), 'none');
    expect(reopened.endOffset).toBe(third);
    expectBodies(reopened, 0, third);
    await reopened.close();
  });

  it('rejects every pending group acknowledgement and serves none of those records', async () => {
    const disk = new SimDisk({ seed: 3 });
    const log = openLog(disk, 'group');
    await appendAll(log, 0, 2);
    disk.injectFault(failingSync());
    const offsets = [2, 3, 4].map((i) => log.appendNoWait(body(i)));
    const acks = await Promise.allSettled(offsets.map((offset) => log.acknowledged(offset)));
    const fenced = { status: 'rejected', reason: { code: 'LOG_FENCED' } };
    for (const ack of acks) expect(ack).toMatchObject(fenced);
    expect(log.endOffset).toBe(2);
    await log.close();
    const reopened = openLog(disk, 'group');
    expect(reopened.endOffset).toBe(2);
    expectBodies(reopened, 0, 2);
  });
});

const settled = (ack: Promise<unknown>): Promise<string> =>
  ack.then(
    () => 'ok',
    () => 'rejected',
  );

/** Every record the reopened log holds reads back as appended: nothing lost is trusted. */
function expectIntact(log: Log, where: string): void {
  for (let offset = 0; offset < log.endOffset; offset++) {
    expect(log.read(offset).body.equals(body(offset)), `${where}, offset ${offset}`).toBe(true);
  }
}

describe('a group sync that fails', () => {
  it('inline, fences the log before anything else can sync the segment', async () => {
    const disk = new SimDisk({ seed: 7 });
    const options = { io: disk, segmentBytes: 1024, groupMaxBytes: 1, nowMs: () => 0 };
    const log = Log.open(DIR, { ...options, durability: 'group', syncMode: 'inline' });
    while (log.sizeBytes < 700) await log.append(body(0));
    disk.injectFault(failingSync());
    // Its write starts a group sync at once (groupMaxBytes 1), and that fdatasync fails: a roll
    // or flush after it would sync the same pages successfully (they are clean now).
    const covered = log.appendNoWait(Buffer.alloc(200, 1));
    expect(errorOf(() => log.appendNoWait(Buffer.alloc(200, 2))).code).toBe('LOG_FENCED');
    expect((await rejectionOf(log.flush())).code).toBe('LOG_FENCED');
    expect(log.segments().length).toBe(1);
    expect(log.endOffset).toBe(covered);
    await expect(log.acknowledged(covered)).rejects.toMatchObject({ code: 'LOG_FENCED' });
  });

  for (const during of ['flush', 'roll'] as const) {
    it(`on the thread pool, lets no ${during} made while it ran vouch for what it covered`, async () => {
      for (const seed of SEEDS.slice(0, 5)) {
        const disk = new SimDisk({ seed });
        const options = { io: new PoolIO(disk), segmentBytes: 4096, nowMs: () => 0 };
        const log = Log.open(DIR, { ...options, durability: 'group', syncMode: 'thread-pool' });
        await log.append(body(0));
        disk.injectFault(failingSync());
        const acks = Array.from({ length: 5 }, (_, i) =>
          settled(log.acknowledged(log.appendNoWait(body(1 + i)))),
        );
        await new Promise((resolve) => setImmediate(resolve)); // the sync is on the pool, failed
        if (during === 'flush') await settled(log.flush());
        for (let i = 6; during === 'roll' && log.segments().length < 2; i++)
          acks.push(settled(log.acknowledged(log.appendNoWait(body(i)))));
        expect(await Promise.all(acks), `seed ${seed}`).toEqual(acks.map(() => 'rejected'));
        expect(log.endOffset, `seed ${seed}`).toBe(1);
        expect(log.segments().length).toBe(1);
        await log.close();
        expectIntact(
          Log.open(DIR, { ...options, io: disk.crash(), durability: 'group' }),
          `seed ${seed}`,
        );
      }
    });
  }

  it('on the thread pool, seals no segment on a roll that a failed sync still on its way could leave damaged', async () => {
    // Crash-loop seed 2088 (log, group): the sync failed on the pool and the pages it covered
    // were marked clean; a roll synced the segment (successfully, writing none of them), sealed
    // it and saved a point at the next segment; the power failed before the failure came back.
    // The reopen trusted the sealed segment, and reading it met zeros where records had been.
    for (const seed of SEEDS) {
      const disk = new SimDisk({ seed });
      const options = { io: new PoolIO(disk), segmentBytes: 1024, nowMs: () => 0 };
      const log = Log.open(DIR, { ...options, durability: 'group', syncMode: 'thread-pool' });
      await log.append(body(0));
      disk.injectFault(failingSync());
      const acks = Array.from({ length: 5 }, (_, i) =>
        settled(log.acknowledged(log.appendNoWait(Buffer.alloc(170, 1 + i)))),
      );
      await new Promise((resolve) => setImmediate(resolve)); // the sync is on the pool, failed
      for (let i = 6; log.segments().length < 2; i++)
        acks.push(settled(log.acknowledged(log.appendNoWait(Buffer.alloc(170, i)))));
      const reopened = Log.open(DIR, { ...options, io: disk.crash(), durability: 'group' });
      expectReadableFromStart(reopened, `seed ${seed}`);
      expect(reopened.endOffset, `seed ${seed}`).toBeGreaterThanOrEqual(1);
      expect(reopened.recovery.findings, `seed ${seed}`).toEqual([]);
      await Promise.all(acks);
    }
  });

  it('on the thread pool, leaves no hole when the fence cannot durably remove later rolls', async () => {
    // Seeds enough for crashes that keep the middle one's unlink and drop the newest one's.
    for (let seed = 1; seed <= 60; seed++) {
      const disk = new SimDisk({ seed });
      const options = { io: new PoolIO(disk), segmentBytes: 1024, nowMs: () => 0 };
      const log = Log.open(DIR, { ...options, durability: 'group', syncMode: 'thread-pool' });
      await log.append(body(0));
      disk.injectFault(failingSync());
      const ack = settled(log.acknowledged(log.appendNoWait(body(1))));
      await new Promise((resolve) => setImmediate(resolve)); // the sync is on the pool, failed
      for (let i = 2; log.segments().length < 4; i++) log.appendNoWait(body(i)); // three rolls meanwhile
      // The fence saves its point (one directory fsync), then removes the three rolled segments:
      // the directory fsync after that fails, and the power fails before another one.
      disk.injectFault({ kind: 'error', call: 'fsyncDir', nth: 2, errno: 'EIO' });
      expect(await ack, `seed ${seed}`).toBe('rejected');
      const reopened = Log.open(DIR, { ...options, io: disk.crash(), durability: 'group' });
      expectIntact(reopened, `seed ${seed}`);
    }
  });

  it('on the thread pool, acknowledges an older offset asked for late once a sync covered it', async () => {
    const disk = new SimDisk({ seed: 1 });
    const log = Log.open(DIR, {
      io: new PoolIO(disk),
      durability: 'group',
      syncMode: 'thread-pool',
      nowMs: () => 0,
    });
    await log.append(body(0));
    for (let i = 1; i <= 4; i++) log.appendNoWait(body(i));
    await new Promise((resolve) => setImmediate(resolve)); // a sync of offsets up to 4 is on the pool
    const later = log.appendNoWait(body(5)); // the next sync covers it, and that one fails
    disk.injectFault(failingSync());
    const lateAck = settled(log.acknowledged(later));
    const earlyAck = settled(log.acknowledged(asOffset(2)));
    expect(await earlyAck).toBe('ok');
    expect(await lateAck).toBe('rejected');
  });

  it('on the thread pool, still acknowledges what close synced when it closes meanwhile', async () => {
    const disk = new SimDisk({ seed: 3 });
    const log = Log.open(DIR, {
      io: new SlowPoolIO(disk),
      durability: 'group',
      syncMode: 'thread-pool',
      nowMs: () => 0,
    });
    const acks = Array.from({ length: 3 }, (_, i) =>
      settled(log.acknowledged(log.appendNoWait(body(i)))),
    );
    await new Promise((resolve) => setImmediate(resolve)); // the group's sync is on the pool
    const closing = log.close();
    expect(await Promise.all(acks)).toEqual(['ok', 'ok', 'ok']);
    await closing;
    expect(disk.openHandles).toBe(0);
    expectIntact(Log.open(DIR, { io: disk.crash(), durability: 'group' }), 'after close');
  });
});

describe('recovery from a saved point', () => {
  const timed = (on: SimDisk, nowMs: number, durability: DurabilityPolicy) =>
    Log.open(DIR, {
      io: on,
      durability,
      syncMode: 'inline',
      segmentBytes: 1 << 20,
      indexIntervalBytes: 256,
      nowMs: () => nowMs,
    });

  it('scans nothing and keeps the time index when only zeros follow the point', () => {
    const disk = new SimDisk({ seed: 7 });
    const log = timed(disk, 1_000, 'always');
    for (let i = 0; i < 100; i++) log.appendNoWait(body(i));
    log.flush(); // the point is at the end of the data; preallocated zeros follow
    const reopened = timed(disk.crash(), 9_000, 'always');
    expect(reopened.endOffset).toBe(100);
    expect(reopened.recovery).toMatchObject({
      startedFrom: 'recovery-point',
      scannedRecords: 0,
      scannedBytes: 0,
    });
    expect(reopened.offsetForTime(5_000)).toBe(100); // every entry still says 1,000
  });

  it('cuts a torn record right after the point there, keeping the time index before it', () => {
    const disk = new SimDisk({ seed: 7 });
    const log = timed(disk, 1_000, 'none');
    for (let i = 0; i < 100; i++) log.appendNoWait(body(i));
    log.flush();
    const flushedBytes = log.sizeBytes;
    log.appendNoWait(body(100));
    const handle = disk.open(FIRST_SEGMENT, { create: false });
    disk.truncate(handle, flushedBytes + 10); // only 10 bytes of it reached the device
    disk.close(handle);
    disk.syncAll();
    const reopened = timed(disk.crash(), 9_000, 'none');
    expect(reopened.endOffset).toBe(100);
    expect(reopened.recovery).toMatchObject({ startedFrom: 'recovery-point', scannedBytes: 0 });
    const cut = reopened.recovery.truncation!;
    expect(cut.positionBytes).toBe(flushedBytes);
    expect(cut.discardedBytes + cut.zeroTailBytes).toBe(10);
    expect(reopened.offsetForTime(5_000)).toBe(100);
  });

  it('read-only, leaves the segments after a cut in place and unread', async () => {
    const disk = new SimDisk({ seed: 1 });
    const log = openLog(disk);
    for (let i = 0; i < 40; i++) log.appendNoWait(body(i));
    const cutAt = log.read(5);
    const files = log.segments().map((segment) => segment.logPath);
    expect(files.length).toBe(2);
    await log.close();
    // What a fence that moved the point back and was cut short before removing a roll leaves.
    const point = { segmentBaseOffset: 0, positionBytes: cutAt.positionBytes, nextOffset: 5 };
    writeRecoveryPoint(disk, DIR, { ...point, sealing: true });
    const handle = disk.open(files[0]!, { create: false });
    disk.truncate(handle, cutAt.positionBytes);
    disk.close(handle);
    const readOnly = Log.open(DIR, { io: disk, readOnly: true });
    expect(readOnly.endOffset).toBe(5);
    expect(readOnly.recovery.removedSegments).toEqual([files[1]]);
    expect(files.map((file) => disk.exists(file))).toEqual([true, true]);
    await readOnly.close();
    const writable = openLog(disk);
    expect(writable.recovery.removedSegments).toEqual([files[1]]);
    expect(files.map((file) => disk.exists(file))).toEqual([true, false]);
    expectBodies(writable, 0, 5);
  });

  it('distrusts a point whose next offset cannot sit where it says', async () => {
    const disk = new SimDisk({ seed: 7 });
    const log = timed(disk, 1_000, 'none');
    for (let i = 0; i < 10; i++) log.appendNoWait(body(i));
    await log.close();
    writeRecoveryPoint(disk, DIR, { segmentBaseOffset: 0, positionBytes: 0, nextOffset: 5 });
    const reopened = timed(disk, 9_000, 'none');
    expect(reopened.endOffset).toBe(10);
    expect(reopened.recovery.recoveryPointProblem).toMatch(
      /next offset 5\) disagrees with the data: the data has offset 0 there/,
    );
    expectBodies(reopened, 0, 10);
  });

  it('rescans the segment from its start when the point lands on a record with another id', async () => {
    const disk = new SimDisk({ seed: 7 });
    const log = timed(disk, 1_000, 'none');
    for (let i = 0; i < 100; i++) log.appendNoWait(body(i));
    const record50 = log.read(50);
    await log.close();
    // A point that lands on record 50 while claiming offset 100 comes next.
    writeRecoveryPoint(disk, DIR, {
      segmentBaseOffset: 0,
      positionBytes: record50.positionBytes,
      nextOffset: 100,
    });
    const reopened = timed(disk, 9_000, 'none');
    expect(reopened.endOffset).toBe(100);
    expect(reopened.recovery).toMatchObject({
      startedFrom: 'segment-start',
      scannedRecords: 100,
      truncation: null,
    });
    expect(reopened.recovery.recoveryPointProblem).toMatch(
      /disagrees with the data: the data has offset 50 there/,
    );
    expect(reopened.recovery.indexEntriesRebuilt).toBe(reopened.explainLookup(99).indexEntries);
    expectBodies(reopened, 0, 100);
  });
});

describe('the record limit stored with the log', () => {
  const big = Buffer.alloc(3000, 0x62);

  it('keeps reading and recovering longer records when reopened with a smaller limit', async () => {
    const disk = new SimDisk({ seed: 2 });
    const log = Log.open(DIR, {
      io: disk,
      durability: 'always',
      syncMode: 'inline',
      segmentBytes: 1 << 20,
      maxRecordBytes: 8192,
    });
    for (let i = 0; i < 3; i++) log.appendNoWait(big);
    // A crash before close: reopening scans what follows the recovery point.
    const small = {
      io: disk.crash(),
      durability: 'always',
      segmentBytes: 1 << 20,
      maxRecordBytes: 1024,
    } as const;
    const reopened = Log.open(DIR, small);
    expect(reopened.endOffset).toBe(3);
    expect(reopened.recovery.truncation?.discardedBytes).toBe(0); // the preallocated zeros only
    expect(reopened.read(2).body.equals(big)).toBe(true);
    expect(() => reopened.appendNoWait(big)).toThrow(
      expect.objectContaining({ code: 'RECORD_TOO_LARGE' }),
    );
    reopened.appendNoWait(Buffer.alloc(500));
    for (let i = 0; reopened.segments().length < 2; i++)
      reopened.appendNoWait(Buffer.alloc(1000, i));
    expect(reopened.read(2).body.equals(big)).toBe(true);
    await reopened.close();
  });

  it('rises when the log is opened with a larger one', async () => {
    const disk = new SimDisk({ seed: 2 });
    await Log.open(DIR, { io: disk, maxRecordBytes: 1024 }).close();
    expect(readRecordLimit(disk, DIR)).toBe(1024);
    await Log.open(DIR, { io: disk, maxRecordBytes: 4096 }).close();
    await Log.open(DIR, { io: disk, maxRecordBytes: 2048 }).close();
    expect(readRecordLimit(disk, DIR)).toBe(4096);
  });
});

describe('an index write that fails part-way through a batch', () => {
  it('leaves the log ending where the batch began, index and range included', async () => {
    const disk = new SimDisk({ seed: 1 });
    // Dense: an entry per record, and the write-behind buffer holds 512 of them.
    const log = Log.open(DIR, {
      io: disk,
      durability: 'none',
      indexIntervalBytes: 0,
      nowMs: () => 0,
    });
    for (let i = 0; i < 500; i++) log.appendNoWait(body(i));
    disk.injectFault({ kind: 'error', call: 'write', nth: 1, errno: 'EIO', file: /\.index$/ });
    // The batch's log write succeeds; its 13th index entry flushes the buffer, and that fails.
    expect(
      errorOf(() => log.appendBatchNoWait(Array.from({ length: 20 }, (_, i) => body(500 + i))))
        .code,
    ).toBe('IO_ERROR');
    expect(log.endOffset).toBe(500);
    expect(errorOf(() => log.read(505)).message).toContain('offsets 0 to 499');
    expect(log.explainLookup(499).indexEntries).toBe(500);
    expectBodies(log, 490, 10);
    await log.close();
    const reopened = openLog(disk, 'none');
    expect(reopened.endOffset).toBe(500);
    expectBodies(reopened, 0, 500);
  });
});

describe('a disk that fills up part-way through a record', () => {
  for (const then of ['ENOSPC', 'no-progress'] as const) {
    const reported = then === 'ENOSPC' ? 'IO_ERROR (ENOSPC)' : 'SHORT_IO';
    it(`reports ${reported} and leaves no partial record`, async () => {
      for (const seed of SEEDS.slice(0, 10)) {
        const disk = new SimDisk({ seed });
        const log = openLog(disk, 'none');
        await appendAll(log, 0, 3);
        const sizeBefore = disk.readWholeFile(FIRST_SEGMENT)!.length;
        const partWay = { kind: 'short-write', nth: 1, landedBytes: 10, then } as const;
        disk.injectFault({ ...partWay, file: FIRST_SEGMENT });
        const failed = errorOf(() => log.appendNoWait(body(3)));
        expect(failed.code).toBe(then === 'ENOSPC' ? 'IO_ERROR' : 'SHORT_IO');
        if (then === 'ENOSPC') expect(failed.message).toMatch(/the disk is full/);
        expect(errorOf(() => log.appendNoWait(body(4))).code).toBe('LOG_FENCED');
        expect(disk.readWholeFile(FIRST_SEGMENT)!.length).toBe(sizeBefore);
        await log.close();
        const reopened = openLog(disk, 'none');
        expect(reopened.recovery.truncation).toBeNull();
        expect(reopened.endOffset).toBe(3);
        expect(await reopened.append(body(3))).toBe(3);
        reopened.flush();
        const recovered = openLog(disk.crash(), 'none');
        expect(recovered.endOffset, `seed ${seed}`).toBe(4);
        expectBodies(recovered, 0, 4);
      }
    });
  }
});

describe('too many open files', () => {
  it('fails the append that rolls to a new segment, naming the file and the limit', async () => {
    const disk = new SimDisk({ seed: 4 });
    const log = openLog(disk);
    let count = 0;
    while (log.segments().length === 1 && log.sizeBytes + 64 < 1024) {
      await log.append(body(count++));
    }
    disk.injectFault({ kind: 'error', call: 'open', nth: 1, errno: 'EMFILE' });
    const failed = errorOf(() => {
      for (let i = count; log.segments().length === 1; i++) log.appendNoWait(body(i));
    });
    expect(failed.code).toBe('IO_ERROR');
    expect(failed.context.reason).toBe('EMFILE');
    expect(failed.message).toMatch(/too many open files .*ulimit -n/);
    expect(log.fenced?.code).toBe('LOG_FENCED');
    const reached = log.endOffset;
    await log.close();
    expect(disk.openHandles).toBe(0);
    const reopened = openLog(disk);
    expect(reopened.endOffset).toBe(reached);
    await appendAll(reopened, reached, 30);
    expect(reopened.segments().length).toBeGreaterThan(1);
    const recovered = openLog(disk.crash());
    expectBodies(recovered, 0, reached + 30);
  });

  it('leaks no handle when recovery cannot remove the segments after a cut', () => {
    const before = new SimDisk({ seed: 1 });
    const log = openLog(before, 'none');
    for (let i = 0; i < 5; i++) log.appendNoWait(body(i));
    log.flush();
    const point = log.sizeBytes;
    for (let i = 5; log.segments().length < 4; i++) log.appendNoWait(body(i));
    before.syncAll();
    const disk = before.crash();
    // A point moved back by a fence, damage right after it: recovery cuts there and removes the
    // three later segments (written after that point, as far as it knows).
    writeRecoveryPoint(disk, DIR, {
      segmentBaseOffset: 0,
      positionBytes: point,
      nextOffset: 5,
      sealing: true,
    });
    const handle = disk.open(FIRST_SEGMENT, { create: false });
    disk.write(handle, Buffer.alloc(16, 0xff), 0, 16, point);
    disk.close(handle);
    class FailingUnlink extends DelegatingFileIO {
      override unlink(filePath: string): void {
        throw ioError('unlink', filePath, Object.assign(new Error('EIO'), { code: 'EIO' }));
      }
    }
    expect(() =>
      Log.open(DIR, { io: new FailingUnlink(disk), durability: 'none', segmentBytes: 1024 }),
    ).toThrow(/unlink/);
    expect(disk.openHandles).toBe(0);
  });

  it('leaks no handle when a file of a new segment cannot be opened, whichever it is', async () => {
    for (const file of [/\.log$/, /\.index$/, /\.timeindex$/]) {
      const disk = new SimDisk({ seed: 6 });
      const log = openLog(disk);
      const open = disk.openHandles;
      disk.injectFault({ kind: 'error', call: 'open', nth: 1, errno: 'EMFILE', file });
      expect(
        errorOf(() => {
          for (let i = 0; log.segments().length === 1; i++) log.appendNoWait(body(i));
        }).context.reason,
      ).toBe('EMFILE');
      // The sealed segment's indexes were closed at the roll; nothing of the new one is open.
      expect(disk.openHandles).toBeLessThanOrEqual(open);
      await log.close();
      expect(disk.openHandles).toBe(0);
    }
  });

  it('closes every segment it had opened when a later one cannot be opened', async () => {
    const disk = new SimDisk({ seed: 7 });
    const log = openLog(disk);
    let i = 0;
    while (log.segments().length < 4) await log.append(body(i++));
    await log.close();
    const third = path.posix.join(
      DIR,
      `${String(log.segments()[2]!.baseOffset).padStart(20, '0')}.log`,
    );
    disk.injectFault({
      kind: 'error',
      call: 'open',
      nth: 1,
      errno: 'EMFILE',
      file: new RegExp(`${third}$`),
    });
    expect(errorOf(() => openLog(disk)).context).toMatchObject({ file: third, reason: 'EMFILE' });
    expect(disk.openHandles).toBe(0);
    const reopened = openLog(disk);
    expect(reopened.endOffset).toBe(i);
    await reopened.close();
    expect(disk.openHandles).toBe(0);
  });

  it('fails opening a log whose segment cannot be opened, and opens once it can', async () => {
    const disk = new SimDisk({ seed: 5 });
    const log = openLog(disk);
    await appendAll(log, 0, 40);
    await log.close();
    disk.injectFault({ kind: 'error', call: 'open', nth: 1, errno: 'EMFILE', file: /\.log$/ });
    const failed = errorOf(() => openLog(disk));
    expect(failed.code).toBe('IO_ERROR');
    expect(failed.context).toMatchObject({ file: FIRST_SEGMENT, reason: 'EMFILE' });
    expectBodies(openLog(disk), 0, 40);
  });
});
