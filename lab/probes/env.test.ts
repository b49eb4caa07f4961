import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { captureEnvironment, ensureFreeSpace, selectedScheduler } from './env.js';
import { LabError } from '../errors.js';
import { environmentSchema } from '../results.js';

const tempDir = tempDirs('env');

describe('captureEnvironment', () => {
  it('fills every field of the schema for a directory on this machine', () => {
    const dir = tempDir();
    const environment = captureEnvironment(dir);
    expect(environmentSchema.parse(environment)).toEqual(environment);
    expect(environment.dir).toBe(dir);
    expect(environment.nodeVersion).toBe(process.version);
    expect(environment.cpuCores).toBeGreaterThan(0);
    expect(environment.freeBytes).toBeGreaterThan(0);
    expect(environment.filesystem.type).not.toBeNull();
    const options = environment.filesystem.mountOptions?.split(',') ?? [];
    expect(options.includes('rw') || options.includes('ro')).toBe(true);
    expect(new Set(options).size).toBe(options.length);
    if (environment.device.name !== null) {
      const disk = environment.device.name.split('+')[0] ?? '';
      expect(fs.existsSync(join('/sys/block', disk))).toBe(true);
      expect([512, 4096]).toContain(environment.device.logicalBlockBytes);
      expect(typeof environment.device.rotational).toBe('boolean');
    }
  });

  it('reports no device for a directory on tmpfs', () => {
    if (!fs.existsSync('/dev/shm')) return;
    const environment = captureEnvironment('/dev/shm');
    expect(environment.filesystem.type).toBe('tmpfs');
    expect(environment.device.name).toBeNull();
  });
});

describe('selectedScheduler', () => {
  it('picks the bracketed scheduler', () => {
    expect(selectedScheduler('none [mq-deadline] kyber bfq')).toBe('mq-deadline');
    expect(selectedScheduler('[none] mq-deadline')).toBe('none');
    expect(selectedScheduler('none')).toBe('none');
    expect(selectedScheduler(null)).toBeNull();
  });
});

describe('ensureFreeSpace', () => {
  it('refuses a run that needs more than is free, naming both figures', () => {
    let caught: unknown;
    try {
      ensureFreeSpace('/data', 5 * 1024 ** 3, 1024 ** 3);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(LabError);
    expect((caught as LabError).code).toBe('NOT_ENOUGH_SPACE');
    expect((caught as LabError).message).toMatch(/\/data has 1 GiB free but this run needs 5 GiB/);
  });

  it('lets a run start when there is room or the free space is unknown', () => {
    expect(() => ensureFreeSpace('/data', 10, 11)).not.toThrow();
    expect(() => ensureFreeSpace('/data', 10, null)).not.toThrow();
    expect(() => ensureFreeSpace(tmpdir(), 1)).not.toThrow();
  });
});
