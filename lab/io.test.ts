import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { NodeFileIO } from '../storage/io/node-file-io.js';
import { resolveBlockDevice } from './probes/block-device.js';
import {
  IoPhase,
  type PhaseIo,
  pageCacheProof,
  perMessage,
  phaseCounters,
  readProcIo,
} from './io.js';
import { SeededRandom } from '../storage/sim/prng.js';
import { MiB } from '../storage/units.js';

const tempDir = tempDirs('io');

describe('readProcIo', () => {
  it('reads every field of /proc/self/io', () => {
    const io = readProcIo();
    expect(io).not.toBeNull();
    expect(io?.rcharBytes).toBeGreaterThan(0);
  });

  it('parses the format proc(5) documents and refuses a file missing fields', () => {
    const dir = tempDir();
    const file = join(dir, 'io');
    fs.writeFileSync(
      file,
      'rchar: 10269007\nwchar: 5668833\nsyscr: 96819\nsyscw: 11451\n' +
        'read_bytes: 0\nwrite_bytes: 18747392\ncancelled_write_bytes: 20480\n',
    );
    expect(readProcIo(file)).toEqual({
      rcharBytes: 10269007,
      wcharBytes: 5668833,
      readSyscalls: 96819,
      writeSyscalls: 11451,
      readBytes: 0,
      writeBytes: 18747392,
      cancelledWriteBytes: 20480,
    });
    fs.writeFileSync(file, 'rchar: 1\n');
    expect(readProcIo(file)).toBeNull();
    expect(readProcIo(join(dir, 'missing'))).toBeNull();
  });
});

describe('IoPhase', () => {
  it('sees a known write plus fdatasync in the process, device and FileIO counters', () => {
    const dir = tempDir();
    const fileIo = new NodeFileIO();
    const body = new Uint8Array(MiB);
    new SeededRandom(1).fillBytes(body);
    const phase = IoPhase.start({ device: resolveBlockDevice(dir), fileIo });
    const handle = fileIo.open(join(dir, 'data'), { create: true });
    fileIo.write(handle, body, 0, body.length, 0);
    fileIo.fdatasync(handle);
    fileIo.close(handle);
    const io = phase.end();
    expect(io.fileIo).toMatchObject({ writeCalls: 1, writeBytes: MiB, fdatasyncCalls: 1 });
    expect(io.proc?.wcharBytes).toBeGreaterThanOrEqual(MiB);
    expect(io.proc?.writeSyscalls).toBeGreaterThanOrEqual(1);
    // write_bytes is charged per dirtied page; the filesystem may add its own, never fewer.
    expect(io.proc?.writeBytes).toBeGreaterThanOrEqual(MiB);
    if (io.device !== null) {
      // Other processes share the disk, so only a lower bound holds.
      expect(io.device.writeBytes).toBeGreaterThanOrEqual(MiB);
      expect(io.device.writeIos).toBeGreaterThanOrEqual(1);
    }
    expect(io.elapsedNs).toBeGreaterThan(0);
  });

  it('proves a read of freshly written data came from memory', () => {
    const dir = tempDir();
    const file = join(dir, 'warm');
    fs.writeFileSync(file, new Uint8Array(MiB));
    const phase = IoPhase.start({ device: null });
    expect(fs.readFileSync(file).length).toBe(MiB);
    const proof = pageCacheProof(phase.end());
    expect(proof?.logicalReadBytes).toBeGreaterThanOrEqual(MiB);
    expect(proof?.servedFromMemoryFraction).toBeGreaterThan(0.9);
  });

  it('can be ended only once', () => {
    const phase = IoPhase.start({ device: null });
    phase.end();
    expect(() => phase.end()).toThrow(/once/);
  });
});

describe('derived figures', () => {
  const phase: PhaseIo = {
    elapsedNs: 1e9,
    proc: {
      rcharBytes: 4096,
      wcharBytes: 2048,
      readSyscalls: 1,
      writeSyscalls: 2,
      readBytes: 1024,
      writeBytes: 8192,
      cancelledWriteBytes: 0,
    },
    device: {
      disks: ['vda'],
      readIos: 1,
      readBytes: 4096,
      writeIos: 4,
      writeBytes: 16384,
      flushIos: 2,
      discardBytes: 0,
      busyMs: 3,
      timeInQueueMs: 5,
    },
    fileIo: {
      writeCalls: 2,
      writeBytes: 2048,
      readCalls: 0,
      readBytes: 0,
      fdatasyncCalls: 2,
      dirFsyncCalls: 0,
    },
  };

  it('divides each source by the message count', () => {
    expect(perMessage(phase, 2)).toMatchObject({
      deviceWriteBytesPerMsg: 8192,
      deviceWriteIosPerMsg: 2,
      deviceFlushIosPerMsg: 1,
      wcharBytesPerMsg: 1024,
      dirtiedBytesPerMsg: 4096,
      fdatasyncCallsPerMsg: 1,
      writeCallsPerMsg: 1,
    });
    expect(() => perMessage(phase, 0)).toThrow(/positive/);
  });

  it('leaves out what was not measured', () => {
    const processOnly = perMessage({ ...phase, device: null, fileIo: null }, 1);
    expect(processOnly).not.toHaveProperty('deviceWriteBytesPerMsg');
    expect(processOnly).not.toHaveProperty('fdatasyncCallsPerMsg');
    expect(processOnly.wcharBytesPerMsg).toBe(2048);
  });

  it('flattens the counters under a prefix for a results document', () => {
    const counters = phaseCounters(phase, 'A.always');
    expect(counters['A.always.device.writeBytes']).toBe(16384);
    expect(counters['A.always.fileIo.fdatasyncCalls']).toBe(2);
    expect(counters['A.always.proc.rcharBytes']).toBe(4096);
    expect(Object.values(counters).every((value) => typeof value === 'number')).toBe(true);
  });

  it('reports the share of reads served from memory', () => {
    expect(pageCacheProof(phase)?.servedFromMemoryFraction).toBe(0.75);
  });
});
