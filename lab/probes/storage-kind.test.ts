import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { splitDeviceNumber } from './block-device.js';
import { classifyStorage, describeStorage, notADiskNote } from './storage-kind.js';

const tempDir = tempDirs('storage-kind');

/** A mount table with `/` on ext4 and `dir` on `type`, as /proc/self/mountinfo writes it. */
function fakeMountInfo(dir: string, type: string): string {
  const file = join(tempDir(), 'mountinfo');
  fs.writeFileSync(
    file,
    [
      '22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
      `40 22 0:41 / ${fs.realpathSync(dir)} rw,nosuid shared:9 - ${type} ${type} rw,size=1024k`,
      '',
    ].join('\n'),
  );
  return file;
}

/** A sysfs where the device holding `dir` is the disk `disk`. */
function fakeSys(dir: string, disk: string): string {
  const root = tempDir();
  const { major, minor } = splitDeviceNumber(fs.statSync(dir, { bigint: true }).dev);
  const node = join(root, 'devices', disk);
  fs.mkdirSync(join(node, 'slaves'), { recursive: true });
  fs.writeFileSync(join(node, 'dev'), `${major}:${minor}\n`);
  fs.mkdirSync(join(root, 'dev', 'block'), { recursive: true });
  fs.symlinkSync(node, join(root, 'dev', 'block', `${major}:${minor}`));
  return root;
}

describe('classifyStorage', () => {
  it('calls a tmpfs or ramfs mount memory, whatever device numbers say', () => {
    const dir = tempDir();
    for (const type of ['tmpfs', 'ramfs']) {
      const storage = classifyStorage(dir, { mountInfoFile: fakeMountInfo(dir, type) });
      expect(storage).toMatchObject({ kind: 'memory', filesystem: type, device: null });
      expect(notADiskNote(storage)).toBe(
        `Measured on ${type} (memory), not a disk: these figures are not a disk's.`,
      );
    }
  });

  it('calls a directory with no block device in sysfs no-device (overlay, no /sys)', () => {
    const dir = tempDir();
    const storage = classifyStorage(dir, {
      mountInfoFile: fakeMountInfo(dir, 'overlay'),
      sysRoot: tempDir(),
    });
    expect(storage.kind).toBe('no-device');
    expect(describeStorage(storage)).toBe('overlay (no block device)');
  });

  it('calls a directory on a disk block, with no note', () => {
    const dir = tempDir();
    const storage = classifyStorage(dir, {
      mountInfoFile: fakeMountInfo(dir, 'ext4'),
      sysRoot: fakeSys(dir, 'vda'),
    });
    expect(storage).toMatchObject({ kind: 'block', filesystem: 'ext4' });
    expect(storage.device?.disks).toEqual(['vda']);
    expect(notADiskNote(storage)).toBeNull();
  });

  it('calls a block device made of RAM (zram, brd) memory', () => {
    const dir = tempDir();
    for (const disk of ['zram0', 'ram1']) {
      const storage = classifyStorage(dir, {
        mountInfoFile: fakeMountInfo(dir, 'ext4'),
        sysRoot: fakeSys(dir, disk),
      });
      expect(storage.kind).toBe('memory');
      expect(describeStorage(storage)).toBe(`${disk} (memory)`);
    }
  });
});
