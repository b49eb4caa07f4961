import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { readBlockStat, resolveBlockDevice, splitDeviceNumber } from './block-device.js';

const tempDir = tempDirs('sys');

function realMajorMinor(dir: string): string {
  const { major, minor } = splitDeviceNumber(fs.statSync(dir, { bigint: true }).dev);
  return `${major}:${minor}`;
}

/** A minimal sysfs: devices/<path> nodes with a `dev` file, and the dev/block and class links. */
interface FakeNode {
  dev: string;
  partition?: boolean;
  slaves?: string[];
}

function fakeSys(nodes: Record<string, FakeNode>): string {
  const root = tempDir();
  fs.mkdirSync(join(root, 'dev', 'block'), { recursive: true });
  fs.mkdirSync(join(root, 'class', 'block'), { recursive: true });
  for (const [nodePath, node] of Object.entries(nodes)) {
    const full = join(root, 'devices', nodePath);
    fs.mkdirSync(join(full, 'slaves'), { recursive: true });
    fs.writeFileSync(join(full, 'dev'), `${node.dev}\n`);
    if (node.partition === true) fs.writeFileSync(join(full, 'partition'), '1\n');
    for (const slave of node.slaves ?? []) fs.writeFileSync(join(full, 'slaves', slave), '');
    const name = nodePath.split('/').at(-1) ?? '';
    fs.symlinkSync(full, join(root, 'dev', 'block', node.dev));
    fs.symlinkSync(full, join(root, 'class', 'block', name));
  }
  return root;
}

describe('splitDeviceNumber', () => {
  it('decodes the glibc dev_t layout', () => {
    expect(splitDeviceNumber(0xfe00n)).toEqual({ major: 254, minor: 0 });
    expect(splitDeviceNumber(0x0803n)).toEqual({ major: 8, minor: 3 });
    // major 259 (NVMe extended), minor 300: minor's high bits live above bit 20.
    const dev = (259n << 8n) | (300n & 0xffn) | ((300n & ~0xffn) << 12n);
    expect(splitDeviceNumber(dev)).toEqual({ major: 259, minor: 300 });
  });
});

describe('resolveBlockDevice', () => {
  it('finds the disk holding a directory on this machine, with readable counters', () => {
    const dir = tempDir();
    const device = resolveBlockDevice(dir);
    if (device === null) return expect(fs.existsSync('/sys/dev/block')).toBe(false);
    expect(device.majorMinor).toBe(realMajorMinor(dir));
    expect(device.disks.length).toBeGreaterThan(0);
    for (const disk of device.disks) {
      expect(fs.existsSync(join('/sys/block', disk))).toBe(true);
      expect(readBlockStat(disk)?.writeSectors).toBeGreaterThanOrEqual(0);
    }
  });

  it('follows a partition to its disk', () => {
    const dir = tempDir();
    const sys = fakeSys({
      'pci/block/sdz': { dev: '8:240' },
      'pci/block/sdz/sdz1': { dev: realMajorMinor(dir), partition: true },
    });
    expect(resolveBlockDevice(dir, sys)).toEqual({
      majorMinor: realMajorMinor(dir),
      node: 'sdz1',
      disks: ['sdz'],
    });
  });

  it('follows a device-mapper volume through its slaves to every disk under it', () => {
    const dir = tempDir();
    const sys = fakeSys({
      'virtual/block/dm-9': { dev: realMajorMinor(dir), slaves: ['sdy1', 'sdx'] },
      'pci/block/sdy': { dev: '8:224' },
      'pci/block/sdy/sdy1': { dev: '8:225', partition: true },
      'pci/block/sdx': { dev: '8:208' },
    });
    expect(resolveBlockDevice(dir, sys)).toEqual({
      majorMinor: realMajorMinor(dir),
      node: 'dm-9',
      disks: ['sdx', 'sdy'],
    });
  });

  it('returns null for a filesystem without a block device', () => {
    if (!fs.existsSync('/dev/shm')) return;
    expect(resolveBlockDevice('/dev/shm')).toBeNull();
  });
});

describe('readBlockStat', () => {
  it('reads the seventeen fields and pads the eleven of older kernels', () => {
    const sys = tempDir();
    fs.mkdirSync(join(sys, 'block', 'sdq'), { recursive: true });
    fs.writeFileSync(
      join(sys, 'block', 'sdq', 'stat'),
      '    9675     4339   633626     7158     1158    12099   778816     2024        0' +
        '     2636     9358     3100       55    56392      175        9        0\n',
    );
    expect(readBlockStat('sdq', sys)).toMatchObject({
      readIos: 9675,
      writeSectors: 778816,
      timeInQueueMs: 9358,
      flushIos: 9,
      flushTicksMs: 0,
    });
    fs.writeFileSync(join(sys, 'block', 'sdq', 'stat'), '1 2 3 4 5 6 7 8 9 10 11\n');
    expect(readBlockStat('sdq', sys)).toMatchObject({ timeInQueueMs: 11, flushIos: 0 });
    expect(readBlockStat('missing', sys)).toBeNull();
  });
});
