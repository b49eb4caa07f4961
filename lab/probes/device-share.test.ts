import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { DeviceSharingLog, deviceShare, isShared } from './device-share.js';
import { markedHeadline } from '../experiment.js';
import { IoPhase, type PhaseIo } from '../io.js';
import { KiB, MiB } from '../../storage/units.js';

const tempDir = tempDirs('device-share');

/** A phase's deltas with only what deviceShare reads filled in. */
function phase(deviceBytes: number, ownBytes: number, syncs: number | null): PhaseIo {
  return {
    elapsedNs: 1e9,
    proc: {
      rcharBytes: 0,
      wcharBytes: ownBytes,
      readSyscalls: 0,
      writeSyscalls: 0,
      readBytes: 0,
      writeBytes: ownBytes,
      cancelledWriteBytes: 0,
    },
    device: {
      disks: ['vda'],
      readIos: 0,
      readBytes: 0,
      writeIos: 0,
      writeBytes: deviceBytes,
      flushIos: 0,
      discardBytes: 0,
      busyMs: 0,
      timeInQueueMs: 0,
    },
    fileIo:
      syncs === null
        ? null
        : {
            writeCalls: 0,
            writeBytes: 0,
            readCalls: 0,
            readBytes: 0,
            fdatasyncCalls: syncs,
            dirFsyncCalls: 0,
          },
  };
}

describe('deviceShare', () => {
  it('does not count the journal of our own synced appends as others (ext4, quiet)', () => {
    // 500 synced 1 KiB appends measured on ext4: 2,052,096 bytes dirtied, 6,094,848 written.
    const share = deviceShare(phase(6_094_848, 2_052_096, 500));
    expect(share?.otherBytes).toBe(0);
    expect(isShared(share!)).toBe(false);
  });

  it('flags a phase where others wrote more than 10% of the disk bytes', () => {
    const share = deviceShare(phase(20 * MiB, 2 * MiB, 10))!;
    expect(share.otherBytes).toBe(20 * MiB - 2 * MiB - 11 * 16 * KiB);
    expect(share.fraction).toBeCloseTo(share.otherBytes / (20 * MiB));
    expect(isShared(share)).toBe(true);
  });

  it('does not count pages dirty before the phase, which an earlier phase of ours may have left', () => {
    // A `none` phase left 20 MiB dirty; the next, synced phase wrote 2 MiB of its own while the
    // kernel wrote those 20 MiB back: nobody else wrote anything.
    const next = { ...phase(22 * MiB, 2 * MiB, 10), pendingAtStartBytes: 20 * MiB };
    expect(deviceShare(next)?.otherBytes).toBe(0);
    const busy = { ...phase(42 * MiB, 2 * MiB, 10), pendingAtStartBytes: 20 * MiB };
    expect(isShared(deviceShare(busy)!)).toBe(true);
  });

  it('does not flag others at 10% or below, nor a few stray KiB however large a share', () => {
    expect(isShared(deviceShare(phase(10 * MiB, 9 * MiB - 16 * KiB, null))!)).toBe(false);
    expect(isShared(deviceShare(phase(60 * KiB, 0, null))!)).toBe(false);
    expect(isShared(deviceShare(phase(100 * KiB, 0, null))!)).toBe(true);
  });

  it('cannot say without the disk counters or /proc/self/io', () => {
    expect(deviceShare({ ...phase(MiB, 0, 0), device: null })).toBeNull();
    expect(deviceShare({ ...phase(MiB, 0, 0), proc: null })).toBeNull();
  });

  it('reads fake /sys/block and /proc/self/io counters through an I/O phase', () => {
    const sysRoot = tempDir();
    fs.mkdirSync(join(sysRoot, 'block', 'vda'), { recursive: true });
    const stat = (writeSectors: number) =>
      fs.writeFileSync(
        join(sysRoot, 'block', 'vda', 'stat'),
        `0 0 0 0 10 0 ${writeSectors} 0 0 0 0 0 0 0 0 0 0\n`,
      );
    const procIoFile = join(tempDir(), 'io');
    const io = (writeBytes: number) =>
      fs.writeFileSync(
        procIoFile,
        'rchar: 0\nwchar: 0\n' +
          `syscr: 0\nsyscw: 0\nread_bytes: 0\nwrite_bytes: ${writeBytes}\ncancelled_write_bytes: 0\n`,
      );
    stat(1000);
    io(4096);
    const ended: PhaseIo[] = [];
    const device = { majorMinor: '253:0', node: 'vda', disks: ['vda'] };
    const meminfoFile = join(tempDir(), 'meminfo');
    fs.writeFileSync(meminfoFile, 'Dirty:              64 kB\nWriteback:           0 kB\n');
    const started = IoPhase.start({
      device,
      sysRoot,
      procIoFile,
      meminfoFile,
      onEnd: (p) => ended.push(p),
    });
    stat(1000 + (8 * MiB) / 512);
    io(4096 + MiB);
    const result = started.end();
    expect(ended).toEqual([result]);
    expect(deviceShare(result)).toMatchObject({
      deviceBytes: 8 * MiB,
      ownBytes: MiB,
      otherBytes: 7 * MiB - 16 * KiB - 64 * KiB,
    });
  });
});

describe('DeviceSharingLog', () => {
  it('says nothing when no phase was shared', () => {
    const log = new DeviceSharingLog();
    log.add(phase(4 * MiB, 2 * MiB, 200));
    expect(log.summary()).toBeNull();
    expect(log.mark()).toBeNull();
    expect(markedHeadline('B 10 vs A 5 msgs/s.', [])).toBe('B 10 vs A 5 msgs/s.');
  });

  it('sums the shared phases and marks the headline', () => {
    const log = new DeviceSharingLog();
    log.add(phase(4 * MiB, 2 * MiB, 200));
    log.add(phase(10 * MiB, MiB, 0));
    log.add(phase(10 * MiB, MiB, 0));
    const other = 2 * (9 * MiB - 16 * KiB);
    expect(log.summary()).toEqual({
      phases: 3,
      sharedPhases: 2,
      otherBytes: other,
      ownBytes: 2 * MiB,
      deviceBytes: 20 * MiB,
      fraction: other / (20 * MiB),
    });
    const mark = log.mark()!;
    expect(mark).toMatch(/^Device figures are shared: other programs wrote 90% of the disk's/);
    expect(mark).toContain('in 2 of 3 measured phases');
    expect(markedHeadline('B 10 vs A 5 msgs/s.', [mark])).toBe(`B 10 vs A 5 msgs/s. ${mark}`);
    expect(markedHeadline(undefined, [mark])).toBe(mark);
  });
});
