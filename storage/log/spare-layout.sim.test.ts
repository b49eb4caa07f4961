/**
 * Spare layout on a simulated disk (spare-segment.ts): under `always` and `group`, once the active
 * segment is half full and no spare waits, the next segment's file is zero-filled and synced on
 * the thread pool under a name of its own, then renamed to the spare's; the roll renames it into
 * place, so no extent of the new segment is zero-filled on the event loop. Retention's spare
 * stops a layout, a closing log abandons one while it still holds the writer lock, a failed one
 * leaves the rolls to zero-fill as before, and one a crash leaves is unlinked at the next open.
 * Power cuts inside layouts are the crash loop's (crash-loop.test.ts).
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DelegatingFileIO } from '../io/delegating-file-io.js';
import type { DurabilityPolicy } from '../io/durability.js';
import type { FileIO } from '../io/file-io.js';
import { Log } from './log.js';
import type { LogOptions } from './log-config.js';
import { SPARE_LAYOUT_FILE, SPARE_SEGMENT_FILE } from '../segments/segment-files.js';
import { SimDisk } from '../sim/sim-disk.js';
import { ZerosByFile } from '../testing/zeros-by-file.js';

const DIR = '/data/log';
const SPARE = path.posix.join(DIR, SPARE_SEGMENT_FILE);
const LAYOUT = path.posix.join(DIR, SPARE_LAYOUT_FILE);
const SEGMENT_BYTES = 4096;

function openLog(io: FileIO, durability: DurabilityPolicy = 'always', more: LogOptions = {}): Log {
  return Log.open(DIR, {
    io,
    durability,
    segmentBytes: SEGMENT_BYTES,
    preallocateExtentBytes: 1024,
    groupMaxDelayMs: 0,
    syncMode: 'inline',
    nowMs: () => 0,
    ...more,
  });
}

const body = (i: number) => Buffer.from(`record ${i} `.repeat(1 + (i % 5)));

/** Lets every thread-pool call the simulated disk resolved settle. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

function expectAll(log: Log, appended: number): void {
  for (let i = log.startOffset; i < appended; i++) expect(log.read(i).body).toEqual(body(i));
}

describe('spare layout', () => {
  for (const durability of ['always', 'group'] as const) {
    it(`under ${durability}, lays out the next segment on the thread pool and the roll zero-fills nothing`, async () => {
      const io = new ZerosByFile(new SimDisk({ seed: 1 }));
      const log = openLog(io, durability);
      let i = 0;
      while (log.segments().length < 2) await log.append(body(i++));
      // The first segment zero-filled its extents on the event loop; the second was laid out.
      const [first, second] = log.segments();
      expect(io.zeroBytes.get(first!.logPath)).toBe(SEGMENT_BYTES);
      expect(io.poolZeroBytes.get(LAYOUT)).toBe(SEGMENT_BYTES);
      expect(log.segmentsLaidOut).toBe(1);
      expect(log.segmentsReused).toBe(0);
      while (log.segments().length < 3) await log.append(body(i++));
      expect(io.zeroBytes.get(second!.logPath) ?? 0).toBe(0);
      expect(log.segmentsLaidOut).toBe(2);
      expectAll(log, i);
      await log.close();
      expect(io.exists(SPARE) || io.exists(LAYOUT)).toBe(false);
    });
  }

  it('lays out nothing under none, or with layOutSpares off', async () => {
    for (const [durability, more] of [
      ['none', {}],
      ['always', { layOutSpares: false }],
    ] as const) {
      const io = new ZerosByFile(new SimDisk({ seed: 2 }));
      const log = openLog(io, durability, more);
      let i = 0;
      while (log.segments().length < 3) await log.append(body(i++));
      await settle();
      expect(io.poolZeroBytes.size).toBe(0);
      expect(log.segmentsLaidOut).toBe(0);
      await log.close();
    }
  });

  it("stops a layout once retention keeps a spare, and the roll reuses retention's file", async () => {
    const disk = new SimDisk({ seed: 3 });
    const log = openLog(disk, 'always', { layOutSpares: false });
    let i = 0;
    while (log.segments().length < 3) await log.append(body(i++));
    await log.close();
    const reopened = openLog(disk);
    // Past half of the active segment without a wait: the layout starts and cannot finish yet.
    while (reopened.segments().at(-1)!.sizeBytes < SEGMENT_BYTES / 2)
      reopened.appendNoWait(body(i++));
    reopened.appendNoWait(body(i++));
    expect(disk.exists(LAYOUT)).toBe(true);
    reopened.deleteSegmentsBelow(reopened.segments()[1]!.baseOffset);
    await settle();
    expect(disk.exists(LAYOUT)).toBe(false);
    expect(disk.exists(SPARE)).toBe(true);
    const segments = reopened.segments().length;
    while (reopened.segments().length === segments) await reopened.append(body(i++));
    expect([reopened.segmentsReused, reopened.segmentsLaidOut]).toEqual([1, 0]);
    expectAll(reopened, i);
    await reopened.close();
  });

  it("in a segment that was retention's spare, lays out only from three quarters on, when retention kept no file by then", async () => {
    const io = new ZerosByFile(new SimDisk({ seed: 7 }));
    const log = openLog(io);
    let i = 0;
    const active = () => log.segments().at(-1)!;
    const laidOut = () => io.poolZeroBytes.get(LAYOUT) ?? 0;
    while (log.segments().length < 3) await log.append(body(i++));
    // Retention keeps the first removed file as the spare, and the next roll takes it.
    log.deleteSegmentsBelow(log.segments()[2]!.baseOffset);
    while (log.segmentsReused === 0) await log.append(body(i++));
    const before = laidOut();
    // Past half of the reused segment: no layout starts.
    while (active().sizeBytes < (SEGMENT_BYTES * 3) / 4 - 64) await log.append(body(i++));
    await settle();
    expect(laidOut()).toBe(before);
    // Retention keeps a file before three quarters: none starts after them either.
    log.deleteSegmentsBelow(active().baseOffset);
    const reused = active().baseOffset;
    while (active().baseOffset === reused) await log.append(body(i++));
    await settle();
    expect(laidOut()).toBe(before);
    expect(log.segmentsReused).toBe(2);
    // Retention keeps none this time: from three quarters on, the next segment is laid out, and
    // the roll zero-fills no extent of it.
    const lagging = active().baseOffset;
    while (active().baseOffset === lagging) await log.append(body(i++));
    expect(laidOut()).toBe(before + SEGMENT_BYTES);
    expect(log.segmentsLaidOut).toBeGreaterThan(0);
    const next = active();
    while (active().baseOffset === next.baseOffset) await log.append(body(i++));
    expect(io.zeroBytes.get(next.logPath) ?? 0).toBe(0);
    expectAll(log, i);
    await log.close();
  });

  it('abandons a layout when the log closes: no file of it is left, and the next writer opens at once', async () => {
    const disk = new SimDisk({ seed: 4 });
    const log = openLog(disk);
    let i = 0;
    while (log.segments()[0]!.sizeBytes < SEGMENT_BYTES / 2) log.appendNoWait(body(i++));
    log.appendNoWait(body(i++));
    expect(disk.exists(LAYOUT)).toBe(true);
    void log.close(); // no sync in flight: closed before it returns
    expect(disk.exists(LAYOUT)).toBe(false);
    const next = openLog(disk);
    await settle(); // the abandoned layout's last steps name nothing of the next writer's
    expect(disk.exists(LAYOUT) || disk.exists(SPARE)).toBe(false);
    expect(next.endOffset).toBe(i);
    expectAll(next, i);
    await next.close();
  });

  it('unlinks a layout a crash left, at the next writable open', async () => {
    const disk = new SimDisk({ seed: 5 });
    const log = openLog(disk);
    let i = 0;
    while (log.segments()[0]!.sizeBytes < SEGMENT_BYTES / 2) await log.append(body(i++));
    log.appendNoWait(body(i++));
    await log.flush();
    const crashed = disk.crash();
    const reader = Log.open(DIR, { io: crashed, readOnly: true });
    expect(reader.recovery.spareRemoved).toBe(false);
    await reader.close();
    const writer = openLog(crashed);
    expect(writer.recovery.spareRemoved).toBe(true);
    expect(crashed.exists(LAYOUT) || crashed.exists(SPARE)).toBe(false);
    expectAll(writer, i);
    await writer.close();
  });

  it('goes on zero-filling extents when a layout fails, and the log is not fenced', async () => {
    class FailingPoolWrites extends DelegatingFileIO {
      override writeAsync(): Promise<void> {
        return Promise.reject(new Error('EIO on the thread pool'));
      }
    }
    const io = new ZerosByFile(new FailingPoolWrites(new SimDisk({ seed: 6 })));
    const log = openLog(io);
    let i = 0;
    while (log.segments().length < 4) await log.append(body(i++));
    expect(log.fenced).toBeNull();
    expect(log.segmentsLaidOut).toBe(0);
    for (const segment of log.segments().slice(0, 3))
      expect(io.zeroBytes.get(segment.logPath)).toBe(SEGMENT_BYTES);
    expect(io.exists(LAYOUT)).toBe(false);
    expectAll(log, i);
    await log.close();
  });
});
