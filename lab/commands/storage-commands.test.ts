import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Log } from '../../storage/log.js';
import { RECORD_LIMIT_FILE } from '../../storage/record-limit.js';
import { runCli } from '../../test/fixtures/run-cli.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';

const newDir = tempDirs('cli');
const ASHA = '{"order":4127,"email":"confirmation"}';

describe('loglab append, read and dump', () => {
  it('appends one record per line and reads the bodies back', () => {
    const dir = join(newDir(), 'emails');
    const appended = runCli(['append', dir, '--base-offset', '1268408'], `first\nsecond\n${ASHA}\n`);
    expect(appended.status).toBe(0);
    expect(appended.stdout).toBe('appended 3 records: first offset 1268408, last offset 1268410\n');
    expect(runCli(['read', dir, '--offset', '1268410']).stdout).toBe(`${ASHA}\n`);
    expect(runCli(['read', dir, '--offset', '1268408', '--count', '9']).stdout).toBe(`first\nsecond\n${ASHA}\n`);
  });

  it("dumps records as JSON lines with Asha's CRC", () => {
    const dir = newDir();
    runCli(['append', dir, '--base-offset', '1268410'], `${ASHA}\n`);
    const lines = runCli(['dump', dir, '--json']).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { type: 'record', segment: '00000000000001268410.log', offset: 1268410, position: 0, sizeBytes: 53, crc: '0x4405f473', valid: true },
    ]);
  });

  it('prints index and time-index entries with absolute offsets', () => {
    const dir = newDir();
    runCli(['append', dir, '--base-offset', '100', '--index-interval', '0'], 'a\nb\n');
    const entries = runCli(['dump', dir, '--index', '--timeindex', '--json']).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(entries.filter((e) => e.type === 'index')).toEqual([
      { type: 'index', segment: '00000000000000000100.index', offset: 100, position: 0 },
      { type: 'index', segment: '00000000000000000100.index', offset: 101, position: 17 },
    ]);
    expect(entries.filter((e) => e.type === 'timeindex').map((e) => e.offset)).toEqual([100, 101]);
  });

  it('refuses to print a corrupt body and verify names the segment and position', () => {
    const dir = newDir();
    runCli(['append', dir, '--base-offset', '1268408'], `first\nsecond\n${ASHA}\nafter\n`);
    const logPath = join(dir, '00000000000001268408.log');
    const bytes = readFileSync(logPath);
    bytes[43 + 25] = bytes[43 + 25]! ^ 1; // Asha starts after 21 + 22 bytes
    writeFileSync(logPath, bytes);
    const read = runCli(['read', dir, '--offset', '1268410']);
    expect(read.status).toBe(1);
    expect(read.stdout).toBe('');
    expect(read.stderr).toMatch(/CORRUPT_RECORD/);
    expect(runCli(['read', dir, '--offset', '1268411']).stdout).toBe('after\n');
    const verify = runCli(['dump', dir, '--verify']);
    expect(verify.status).toBe(1);
    expect(verify.stderr).toMatch(/00000000000001268408\.log at position 43 \(crc mismatch\)/);
  });

  it('verify names the segment and position of a damaged length, and the walk goes on', () => {
    const dir = newDir();
    const lines = Array.from({ length: 60 }, (_, i) => `message number ${i}`).join('\n');
    runCli(['append', dir, '--segment-bytes', '1024'], `${lines}\n`);
    const dump = (): Array<Record<string, unknown>> =>
      runCli(['dump', dir, '--json']).stdout.trim().split('\n').map((line) => JSON.parse(line));
    const tenth = dump()[10]!;
    const logPath = join(dir, '00000000000000000000.log');
    const bytes = readFileSync(logPath);
    const position = tenth['position'] as number;
    bytes[position + 1] = bytes[position + 1]! ^ 0x20; // its length grows by 2 MiB
    writeFileSync(logPath, bytes);
    const verify = runCli(['dump', dir, '--verify']);
    expect(verify.status).toBe(1);
    expect(verify.stderr).toContain(
      `found 1 invalid entry; the first in 00000000000000000000.log at position ${position} ` +
        '(length above maximum)',
    );
    const records = dump();
    expect(records).toHaveLength(60);
    expect(records.filter((record) => record['valid'] !== true)).toEqual([
      { ...tenth, crc: '-', valid: false, problem: 'length above maximum' },
    ]);
    expect(runCli(['read', dir, '--offset', '11']).stdout).toBe('message number 11\n');
    expect(runCli(['read', dir, '--offset', '10']).stderr).toMatch(/CORRUPT_RECORD/);
  });

  it('verifies records above 1 MiB against the limit stored with the log, or the one it is told', () => {
    const dir = newDir();
    const log = Log.open(dir, { maxRecordBytes: 4 * 1024 * 1024 });
    log.append(Buffer.alloc(2 * 1024 * 1024, 0x61));
    log.close();
    expect(runCli(['dump', dir, '--verify']).status).toBe(0);
    // A log from before the limit was stored with it.
    rmSync(join(dir, RECORD_LIMIT_FILE));
    const unaware = runCli(['dump', dir, '--verify']);
    expect(unaware.status).toBe(1);
    expect(unaware.stderr).toMatch(/length above maximum.*pass its limit with --max-record-bytes/);
    expect(runCli(['dump', dir, '--verify', '--max-record-bytes', '4MiB']).status).toBe(0);
  });

  it('reports the zero tail of a preallocated segment as zeros, not damage, and a torn record before it', () => {
    const dir = newDir();
    runCli(['append', dir], 'one\ntwo\nthree\n');
    const logPath = join(dir, '00000000000000000000.log');
    const data = readFileSync(logPath);
    // As a crash under always leaves it: the data, then the zero-filled rest of the segment.
    const preallocated = Buffer.concat([data, Buffer.alloc(64 * 1024)]);
    writeFileSync(logPath, preallocated);
    const dump = (): Array<Record<string, unknown>> =>
      runCli(['dump', dir, '--json']).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(dump().slice(3)).toEqual([
      { type: 'zeros', segment: '00000000000000000000.log', position: data.length, sizeBytes: 64 * 1024 },
    ]);
    expect(runCli(['dump', dir, '--verify']).status).toBe(0);
    // The last record torn half-way, zeros after it: the damage spans the torn bytes only.
    const torn = Buffer.from(preallocated);
    const lastAt = data.length - 21;
    torn.fill(0, lastAt + 18, data.length); // the header and 'th' of 'three' are left
    writeFileSync(logPath, torn);
    expect(dump().slice(2)).toEqual([
      expect.objectContaining({ type: 'record', offset: 2, position: lastAt, sizeBytes: 18, valid: false }),
      { type: 'zeros', segment: '00000000000000000000.log', position: lastAt + 18, sizeBytes: 64 * 1024 + 3 },
    ]);
    expect(runCli(['dump', dir, '--verify']).status).toBe(1);
  });

  it('rejects bad arguments with one line naming the argument', () => {
    const dir = newDir();
    const bad = runCli(['append', dir, '--segment-bytes', '12 parsecs'], '');
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/--segment-bytes: expected a size/);
    expect(runCli(['read', join(dir, 'missing'), '--offset', '0']).status).toBe(2);
    expect(runCli(['read', dir, '--offset', 'x']).stderr).toMatch(/--offset: expected an integer/);
  });
});
