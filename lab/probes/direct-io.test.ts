import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { openDeviceWriteFile } from './direct-io.js';

const tempDir = tempDirs('direct-io');
const BLOCK = 4096;

describe('openDeviceWriteFile', () => {
  it('gives aligned regions every block write from which the file accepts', () => {
    const file = join(tempDir(), 'data');
    const opened = openDeviceWriteFile(file, BLOCK, 4, 0);
    try {
      expect(['O_DIRECT', 'O_DSYNC']).toContain(opened.mode);
      expect(opened.fallbackReason === null).toBe(opened.mode === 'O_DIRECT');
      for (let region = 0; region < 4; region++) {
        opened.buffer.fill(
          region + 1,
          opened.regionStart(region),
          opened.regionStart(region) + BLOCK,
        );
        const written = fs.writeSync(
          opened.fd,
          opened.buffer,
          opened.regionStart(region),
          BLOCK,
          region * BLOCK,
        );
        expect(written).toBe(BLOCK);
      }
    } finally {
      fs.closeSync(opened.fd);
    }
    const content = fs.readFileSync(file);
    expect(content.length).toBe(4 * BLOCK);
    expect([0, 1, 2, 3].map((region) => content[region * BLOCK + 100])).toEqual([1, 2, 3, 4]);
  });

  it('refuses a block that is not whole pages', () => {
    expect(() => openDeviceWriteFile(join(tempDir(), 'x'), 1000, 1, 0)).toThrow(/whole pages/);
  });
});
