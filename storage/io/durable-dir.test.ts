import { describe, expect, it } from 'vitest';
import { mkdirpDurable } from './durable-dir.js';
import { SimDisk } from '../sim/sim-disk.js';

describe('mkdirpDurable', () => {
  it('makes every level it creates durable, top first', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const disk = new SimDisk({ seed });
      mkdirpDurable(disk, '/data/logs/emails');
      expect(disk.pendingDirOps(), `seed ${seed}`).toEqual([]);
      expect(disk.crash().exists('/data/logs/emails'), `seed ${seed}`).toBe(true);
    }
  });

  it('makes a directory durable that exists only in the page cache (its maker died before the fsync)', () => {
    let lost = 0;
    for (let seed = 1; seed <= 50; seed++) {
      const disk = new SimDisk({ seed });
      disk.mkdirp('/data');
      disk.fsyncDir('/');
      disk.mkdirp('/data/log'); // never fsynced into /data
      mkdirpDurable(disk, '/data/log');
      expect(disk.pendingDirOps()).toEqual([]);
      const handle = disk.open('/data/log/00.log', { create: true });
      disk.write(handle, Buffer.from('acknowledged'), 0, 12, 0);
      disk.fdatasync(handle);
      disk.fsyncDir('/data/log');
      disk.close(handle);
      if (disk.crash().readWholeFile('/data/log/00.log') === null) lost++;
    }
    expect(lost).toBe(0);
  });
});
