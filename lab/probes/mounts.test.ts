import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { findMount, parseMountInfo } from './mounts.js';

describe('mounts', () => {
  it('parses mountinfo lines, optional fields and escaped spaces included', () => {
    const mounts = parseMountInfo(
      '36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n' +
        '27 1 254:0 / /data\\040disk rw,relatime - ext4 /dev/vda rw,discard\n',
    );
    expect(mounts).toEqual([
      {
        majorMinor: '98:0',
        mountPoint: '/mnt2',
        mountOptions: 'rw,noatime',
        type: 'ext3',
        source: '/dev/root',
        superOptions: 'rw,errors=continue',
      },
      {
        majorMinor: '254:0',
        mountPoint: '/data disk',
        mountOptions: 'rw,relatime',
        type: 'ext4',
        source: '/dev/vda',
        superOptions: 'rw,discard',
      },
    ]);
  });

  it('finds the mount of the temp directory on this machine', () => {
    const mount = findMount(tmpdir());
    expect(mount?.mountPoint.length).toBeGreaterThan(0);
    expect(mount?.type.length).toBeGreaterThan(0);
  });
});
