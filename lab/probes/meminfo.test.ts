import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { readDirtyMemory } from './meminfo.js';

const tempDir = tempDirs('meminfo');

describe('readDirtyMemory', () => {
  it('reads Dirty and Writeback in bytes', () => {
    const file = join(tempDir(), 'meminfo');
    fs.writeFileSync(
      file,
      'MemTotal:       24683652 kB\nDirty:              6776 kB\n' +
        'Writeback:             4 kB\nAnonPages:  1 kB\n',
    );
    expect(readDirtyMemory(file)).toEqual({ dirtyBytes: 6776 * 1024, writebackBytes: 4096 });
  });

  it('gives null for a file without the fields or no file at all', () => {
    const dir = tempDir();
    fs.writeFileSync(join(dir, 'meminfo'), 'MemTotal: 1 kB\n');
    expect(readDirtyMemory(join(dir, 'meminfo'))).toBeNull();
    expect(readDirtyMemory(join(dir, 'missing'))).toBeNull();
  });

  it("reads this machine's /proc/meminfo on Linux", () => {
    if (process.platform !== 'linux') return;
    expect(readDirtyMemory()?.dirtyBytes).toBeGreaterThanOrEqual(0);
  });
});
