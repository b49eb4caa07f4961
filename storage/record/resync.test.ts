import { describe, expect, it } from 'vitest';
import { ReadWindow } from '../io/read-window.js';
import { encodeRecord } from './record.js';
import { findRecordAfterDamage } from './resync.js';
import { SimDisk } from '../sim/sim-disk.js';

/** `file` on a simulated disk, with a window bound to it. */
function windowOver(file: Buffer): ReadWindow {
  const disk = new SimDisk({ seed: 1 });
  const handle = disk.open('/segment.log', { create: true });
  disk.write(handle, file, 0, file.length, 0);
  const window = new ReadWindow(disk, 4096);
  window.bind(handle);
  return window;
}

describe('finding the record after one whose length is damaged', () => {
  const damagedOffset = 100;

  it('passes over a record carried inside the body of the damaged one', () => {
    const carried = encodeRecord(
      damagedOffset + 1,
      Buffer.from('a forwarded record, not the next one'),
    );
    const damaged = encodeRecord(damagedOffset, Buffer.concat([Buffer.from('prefix--'), carried]));
    const next = encodeRecord(damagedOffset + 1, Buffer.from('the real next record'));
    const after = encodeRecord(damagedOffset + 2, Buffer.from('and the one after'));
    const file = Buffer.concat([damaged, next, after]);
    file.writeUInt32BE(0x7fff_ffff, 0);
    expect(findRecordAfterDamage(windowOver(file), file.length, 0, damagedOffset, 1 << 20)).toEqual(
      { positionBytes: damaged.length, offset: damagedOffset + 1 },
    );
  });

  it('still takes a lone candidate that nothing follows as it should (more damage after it)', () => {
    const damaged = encodeRecord(damagedOffset, Buffer.from('body of the damaged record'));
    const next = encodeRecord(damagedOffset + 1, Buffer.from('the next record'));
    const alsoDamaged = encodeRecord(damagedOffset + 2, Buffer.from('damaged too'));
    alsoDamaged[alsoDamaged.length - 1] = alsoDamaged[alsoDamaged.length - 1]! ^ 0xff;
    const file = Buffer.concat([damaged, next, alsoDamaged]);
    file.writeUInt32BE(0x7fff_ffff, 0);
    expect(findRecordAfterDamage(windowOver(file), file.length, 0, damagedOffset, 1 << 20)).toEqual(
      { positionBytes: damaged.length, offset: damagedOffset + 1 },
    );
  });
});
