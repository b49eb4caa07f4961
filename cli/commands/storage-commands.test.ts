import { createHash } from 'node:crypto';
import {
  appendFileSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../storage/errors.js';
import { Log } from '../../storage/log/log.js';
import { RECORD_LIMIT_FILE } from '../../storage/segments/segment-files.js';
import { type MainRun, runMain } from '../../test/fixtures/main-in-process.js';
import { runCli } from '../../test/fixtures/run-cli.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';

const newDir = tempDirs('cli');
const ASHA = '{"order":4127,"email":"confirmation"}';

describe('loglab append, read and dump', () => {
  it('appends one record per line and reads the bodies back', () => {
    const dir = join(newDir(), 'emails');
    const appended = runCli(
      ['append', dir, '--base-offset', '1268408'],
      `first\nsecond\n${ASHA}\n`,
    );
    expect(appended.status).toBe(0);
    expect(appended.stdout).toBe('appended 3 records: first offset 1268408, last offset 1268410\n');
    expect(runCli(['read', dir, '--offset', '1268410']).stdout).toBe(`${ASHA}\n`);
    expect(runCli(['read', dir, '--offset', '1268408', '--count', '9']).stdout).toBe(
      `first\nsecond\n${ASHA}\n`,
    );
  });

  it("dumps records as JSON lines with Asha's CRC", () => {
    const dir = newDir();
    runCli(['append', dir, '--base-offset', '1268410'], `${ASHA}\n`);
    const lines = runCli(['dump', dir, '--json'])
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        type: 'record',
        segment: '00000000000001268410.log',
        offset: 1268410,
        position: 0,
        sizeBytes: 53,
        crc: '0x4405f473',
        valid: true,
      },
    ]);
  });

  it('prints index and time-index entries with absolute offsets', () => {
    const dir = newDir();
    runCli(['append', dir, '--base-offset', '100', '--index-interval', '0'], 'a\nb\n');
    const entries = runCli(['dump', dir, '--index', '--timeindex', '--json'])
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries.filter((e) => e.type === 'index')).toEqual([
      { type: 'index', segment: '00000000000000000100.index', offset: 100, position: 0 },
      { type: 'index', segment: '00000000000000000100.index', offset: 101, position: 17 },
    ]);
    // A time entry only when the clock moved on (Kafka's rule): the second append made one only
    // if it came in a later millisecond.
    const timed = entries.filter((e) => e.type === 'timeindex');
    expect(timed[0].offset).toBe(100);
    expect(timed.map((e) => e.offset)).toEqual(timed.length === 1 ? [100] : [100, 101]);
    if (timed.length === 2) expect(timed[1].timestampMs).toBeGreaterThan(timed[0].timestampMs);
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
      runCli(['dump', dir, '--json'])
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line));
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
    log.appendNoWait(Buffer.alloc(2 * 1024 * 1024, 0x61));
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
      runCli(['dump', dir, '--json'])
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    expect(dump().slice(3)).toEqual([
      {
        type: 'zeros',
        segment: '00000000000000000000.log',
        position: data.length,
        sizeBytes: 64 * 1024,
      },
    ]);
    expect(runCli(['dump', dir, '--verify']).status).toBe(0);
    // The last record torn half-way, zeros after it: the damage spans the torn bytes only.
    const torn = Buffer.from(preallocated);
    const lastAt = data.length - 21;
    torn.fill(0, lastAt + 18, data.length); // the header and 'th' of 'three' are left
    writeFileSync(logPath, torn);
    expect(dump().slice(2)).toEqual([
      expect.objectContaining({
        type: 'record',
        offset: 2,
        position: lastAt,
        sizeBytes: 18,
        valid: false,
      }),
      {
        type: 'zeros',
        segment: '00000000000000000000.log',
        position: lastAt + 18,
        sizeBytes: 64 * 1024 + 3,
      },
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

/** Runs `loglab` in this process with `input` as standard input (append reads it). */
async function runWithInput(args: readonly string[], input: string): Promise<MainRun> {
  const stdin = vi
    .spyOn(process, 'stdin', 'get')
    .mockReturnValue(Readable.from([Buffer.from(input)]) as unknown as typeof process.stdin);
  try {
    return await runMain(args);
  } finally {
    stdin.mockRestore();
  }
}

/** Every entry under `dir` (itself included): identity, size, mtime and a hash of the bytes. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const visit = (path: string, name: string) => {
    const stat = statSync(path, { bigint: true });
    const bytes = stat.isFile()
      ? createHash('sha256').update(readFileSync(path)).digest('hex')
      : 'dir';
    entries[name] = `ino ${stat.ino} size ${stat.size} mtime ${stat.mtimeNs} ${bytes}`;
    if (stat.isDirectory()) {
      for (const child of readdirSync(path)) visit(join(path, child), `${name}/${child}`);
    }
  };
  visit(dir, '.');
  return entries;
}

function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('read and dump never create or change files', () => {
  it('read of a directory that holds no log exits 2 naming it, and leaves it empty', async () => {
    const dir = newDir();
    const read = await runMain(['read', dir, '--offset', '0']);
    expect(read.code).toBe(2);
    expect(oneLine(read.stderr)).toContain(dir);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('read of a log changes no byte, mtime or name in its directory', async () => {
    const dir = newDir();
    expect((await runWithInput(['append', dir, '--base-offset', '7'], 'one\ntwo\n')).code).toBe(0);
    const before = snapshot(dir);
    const read = await runMain(['read', dir, '--offset', '7', '--count', '2']);
    expect(read).toMatchObject({ code: 0, stdout: 'one\ntwo\n', stderr: '' });
    expect(snapshot(dir)).toEqual(before);
  });

  it('read of a file or of a missing path is one line and exit 2', async () => {
    const dir = newDir();
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    const file = await runMain(['read', join(dir, 'notes.txt'), '--offset', '0']);
    expect(file.code).toBe(2);
    expect(oneLine(file.stderr)).toMatch(/<dir>: expected a log directory, .*it is a file/);
    const missing = await runMain(['read', join(dir, 'nope'), '--offset', '0']);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toMatch(/nope' \(it does not exist\)/);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it.each([[[]], [['--verify']], [['--verify', '--json']]])(
    'dump %j of a directory with no segments exits 2 and creates nothing',
    async (flags) => {
      const dir = newDir();
      const dump = await runMain(['dump', dir, ...flags]);
      expect(dump.code).toBe(2);
      expect(dump.stdout).toBe('');
      expect(oneLine(dump.stderr)).toBe(
        `loglab: BAD_ARGUMENT: <dir-or-file>: ${dir} holds no log segments; check the path`,
      );
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('dump of a missing path or of a file that is no segment exits 2 with one line', async () => {
    const dir = newDir();
    const missing = await runMain(['dump', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toMatch(/nope is neither a log directory nor a segment file/);
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    const file = await runMain(['dump', join(dir, 'notes.txt')]);
    expect(file.code).toBe(2);
    expect(oneLine(file.stderr)).toMatch(
      /expected a log directory or a segment file.*not a segment/,
    );
  });

  it('dump of a log changes no byte, mtime or name in its directory', async () => {
    const dir = newDir();
    await runWithInput(['append', dir], 'one\ntwo\n');
    const before = snapshot(dir);
    expect((await runMain(['dump', dir, '--verify', '--index', '--timeindex'])).code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
  });

  it('dump --verify --json prints its summary as a JSON line on stdout; text on stderr without', async () => {
    const dir = newDir();
    await runWithInput(['append', dir, '--index-interval', '0'], 'one\ntwo\nthree\n');
    const json = await runMain(['dump', dir, '--verify', '--json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const lines = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { type: 'summary', segments: 1, records: 3, indexEntries: 3, invalid: 0, chainProblems: 0 },
    ]);
    const text = await runMain(['dump', dir, '--verify']);
    expect(text).toMatchObject({ code: 0, stdout: '' });
    expect(text.stderr).toBe(
      'verified 1 segment(s): 3 records, 3 index entries, 0 invalid, 0 chain problem(s)\n',
    );
  });
});

describe('dump --verify checks the chain the segments form, as opening the log does', () => {
  const LINES = `${Array.from({ length: 120 }, (_, i) => `message number ${i}`).join('\n')}\n`;
  const name = (baseOffset: number): string => `${String(baseOffset).padStart(20, '0')}.log`;

  /** A log of 120 records in 1 KiB segments: 0-30, 31-61, 62-92 and 93-119. */
  async function fourSegments(): Promise<string> {
    const dir = newDir();
    expect((await runWithInput(['append', dir, '--segment-bytes', '1024'], LINES)).code).toBe(0);
    const segments = readdirSync(dir).filter((file) => file.endsWith('.log'));
    expect(segments).toEqual([0, 31, 62, 93].map(name));
    return dir;
  }

  interface Verified {
    readonly run: MainRun;
    readonly chain: unknown[];
    readonly summary: unknown;
  }

  async function verify(dir: string): Promise<Verified> {
    const run = await runMain(['dump', dir, '--verify', '--json']);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    return { run, chain: lines.filter((line) => line.type === 'chain'), summary: lines.at(-1) };
  }

  it('passes a log as the log wrote it, and zeros after the active segment', async () => {
    const dir = await fourSegments();
    appendFileSync(join(dir, name(93)), Buffer.alloc(64));
    const { run, chain, summary } = await verify(dir);
    expect(run.code).toBe(0);
    expect(chain).toEqual([]);
    expect(summary).toEqual({
      type: 'summary',
      segments: 4,
      records: 120,
      indexEntries: 0,
      invalid: 0,
      chainProblems: 0,
    });
    const text = await runMain(['dump', dir]);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(/^0+93\.log zeros: 64 bytes from/);
  });

  it('fails on a missing middle segment, naming the offsets and the file to put back', async () => {
    const dir = await fourSegments();
    for (const suffix of ['.log', '.index', '.timeindex']) {
      rmSync(join(dir, name(31).replace('.log', suffix)));
    }
    const { run, chain, summary } = await verify(dir);
    expect(run.code).toBe(1);
    expect(chain).toEqual([
      {
        type: 'chain',
        segment: name(0),
        problem: 'gap',
        fromOffset: 31,
        toOffset: 61,
        next: name(62),
      },
    ]);
    expect(summary).toMatchObject({ invalid: 0, chainProblems: 1 });
    expect(oneLine(run.stderr)).toBe(
      `loglab: CHECK_FAILED: verify found 1 chain problem; the first in ${name(0)}: gap: no ` +
        'records for offsets 31 to 61: it ends whole at offset 30 and the next segment, ' +
        `${name(62)}, starts at 62. A segment file (probably ${name(31)}) was removed or moved, ` +
        'or a file was cut or its end zeroed. Put it back; if those records are lost for good, move every segment ' +
        'before the gap out of the directory so the log starts at 62; the log refuses to open ' +
        'until then (LOG_GAP)',
    );
  });

  it('fails on a renamed segment with one problem, saying what to rename it to', async () => {
    const dir = await fourSegments();
    for (const suffix of ['.log', '.index', '.timeindex']) {
      const [from, to] = [31, 33].map((base) => join(dir, name(base).replace('.log', suffix)));
      renameSync(from!, to!);
    }
    const { run, chain, summary } = await verify(dir);
    expect(run.code).toBe(1);
    expect(chain).toEqual([
      {
        type: 'chain',
        segment: name(33),
        problem: 'name-mismatch',
        nameOffset: 33,
        firstOffset: 31,
      },
    ]);
    expect(summary).toMatchObject({ records: 120, invalid: 0, chainProblems: 1 });
    expect(oneLine(run.stderr)).toMatch(
      new RegExp(
        `the first in ${name(33)}: name-mismatch: named for offset 33 but its first record is ` +
          `offset 31: .*Rename it \\(with its \\.index and \\.timeindex\\) to ${name(31)} if`,
      ),
    );
  });

  it.each([
    ['zero bytes', 'trailing-zeros', Buffer.alloc(64)],
    ['garbage', 'trailing-bytes', Buffer.alloc(64, 0xa7)],
  ])('fails on 64 bytes of %s after a sealed segment, as %s, not as a record', async (...test) => {
    const [, problem, bytes] = test;
    const dir = await fourSegments();
    const recordsEndBytes = statSync(join(dir, name(31))).size;
    appendFileSync(join(dir, name(31)), bytes);
    const { run, chain, summary } = await verify(dir);
    expect(run.code).toBe(1);
    expect(chain).toEqual([
      {
        type: 'chain',
        segment: name(31),
        problem,
        position: recordsEndBytes,
        sizeBytes: 64,
        next: name(62),
      },
    ]);
    expect(summary).toMatchObject({ records: 120, invalid: 0, chainProblems: 1 });
    expect(oneLine(run.stderr)).toMatch(
      new RegExp(
        `the first in ${name(31)}: ${problem}: 64 .* after its last record \\(ending at position ` +
          `${recordsEndBytes}\\).*cutting .*${name(31)} to ${recordsEndBytes} bytes removes them$`,
      ),
    );
  });
});

describe('append says what it stored, even when it then fails', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('an append that fails on line 3 reports lines 1-2 as stored, then the error', async () => {
    const dir = newDir();
    const tooLong = 'x'.repeat(2000); // over the 1 KiB record limit of 1 KiB segments
    const input = `first\nsecond\n${tooLong}\nfourth\n`;
    const append = await runWithInput(['append', dir, '--segment-bytes', '1KiB'], input);
    expect(append.code).toBe(2);
    expect(append.stdout).toBe('appended 2 records: first offset 0, last offset 1\n');
    expect(oneLine(append.stderr)).toMatch(
      /^loglab: RECORD_TOO_LARGE: storage: append: stored offsets 0–1; line 3 refused: a record of 2016 bytes exceeds/,
    );
    const retry = await runWithInput(['append', dir, '--segment-bytes', '1KiB'], 'fourth\n');
    expect(retry.stdout).toBe('appended 1 records: first offset 2, last offset 2\n');
    const read = await runMain(['read', dir, '--offset', '0', '--count', '9']);
    expect(read.stdout).toBe('first\nsecond\nfourth\n');
  });

  it('a first line that fails reports that nothing was stored and the next offset', async () => {
    const dir = newDir();
    const args = ['append', dir, '--segment-bytes', '1KiB', '--base-offset', '5'];
    const append = await runWithInput(args, `${'x'.repeat(2000)}\n`);
    expect(append.code).toBe(2);
    expect(append.stdout).toBe('appended 0 records; the next offset is 5\n');
    expect(oneLine(append.stderr)).toMatch(
      /^loglab: RECORD_TOO_LARGE: storage: append: nothing stored \(next offset 5\); line 1 refused: /,
    );
  });

  it('names the stored range and the refused line when a line longer than a segment follows 300', async () => {
    const dir = newDir();
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`);
    const input = `${[...lines, 'x'.repeat(1500), 'after'].join('\n')}\n`;
    const append = await runWithInput(['append', dir, '--segment-bytes', '1KiB'], input);
    expect(append.code).toBe(2);
    expect(append.stdout).toBe('appended 300 records: first offset 0, last offset 299\n');
    expect(oneLine(append.stderr)).toBe(
      'loglab: RECORD_TOO_LARGE: storage: append: stored offsets 0–299; line 301 refused: ' +
        'a record of 1516 bytes exceeds the maximum record size of 1024 bytes; ' +
        'send a smaller body or open the log with a larger maxRecordBytes',
    );
    const read = await runMain(['read', dir, '--offset', '299', '--count', '9']);
    expect(read.stdout).toBe('line 300\n');
  });

  it('refuses a base offset with no room for a record, and stops at the offset limit', async () => {
    const dir = newDir();
    const max = String(Number.MAX_SAFE_INTEGER);
    const refused = await runWithInput(['append', dir, '--base-offset', max], 'a\n');
    expect(refused.code).toBe(2);
    expect(oneLine(refused.stderr)).toMatch(
      /--base-offset: expected an integer from 0 to 9007199254740990/,
    );
    expect(readdirSync(dir)).toEqual([]);
    const nearLimit = ['append', dir, '--base-offset', '9007199254740990'];
    const append = await runWithInput(nearLimit, 'a\nb\n');
    expect(append.stdout).toBe(
      'appended 1 records: first offset 9007199254740990, last offset 9007199254740990\n',
    );
    expect(append.code).toBe(2);
    expect(oneLine(append.stderr)).toMatch(/^loglab: OFFSET_LIMIT: /);
    // The log still opens and reads.
    const read = await runMain(['read', dir, '--offset', '9007199254740990']);
    expect(read).toMatchObject({ code: 0, stdout: 'a\n' });
  });

  it('under group, counts as stored only what was acknowledged', async () => {
    const dir = newDir();
    await runWithInput(['append', dir], 'zero\n');
    const message = 'fdatasync failed on the segment (EIO); check the disk';
    const failed = new StorageError('IO_ERROR', message, { reason: 'EIO' });
    vi.spyOn(Log.prototype, 'acknowledged').mockRejectedValue(failed);
    vi.spyOn(Log.prototype, 'syncedEndOffset', 'get').mockReturnValue(2 as never);
    const group = ['append', dir, '--durability', 'group'];
    const append = await runWithInput(group, 'one\ntwo\nthree\n');
    expect(append.code).toBe(1);
    expect(append.stdout).toBe(
      'appended 1 records: first offset 1, last offset 1\n' +
        'appended 2 records: first offset 2, last offset 3 (not acknowledged: IO_ERROR; ' +
        'check them with loglab read before appending them again)\n',
    );
    expect(oneLine(append.stderr)).toMatch(/^loglab: IO_ERROR: storage: fdatasync failed/);
  });

  it('tells what recovery cut when a torn tail starts exactly at the recovery point', async () => {
    const dir = newDir();
    await runWithInput(['append', dir], 'one\ntwo\n');
    // A clean close saved the recovery point at the end of the data: the tail lies past it.
    appendFileSync(join(dir, '00000000000000000000.log'), Buffer.from('\x00\x00\x00\x30torn'));
    const append = await runWithInput(['append', dir], 'three\n');
    expect(append.code).toBe(0);
    expect(append.stderr).toMatch(/cut 00000000000000000000\.log at position 38/);
    expect(append.stdout).toBe('appended 1 records: first offset 2, last offset 2\n');
    const quiet = await runWithInput(['append', dir], 'four\n');
    expect(quiet.stderr).toBe('');
  });

  it('a symbolic link at a file of the log is one line naming it, exit 2, nothing stored', async () => {
    const dir = newDir();
    await runWithInput(['append', dir], 'one\n');
    const outside = join(newDir(), 'elsewhere.log');
    const segment = join(dir, '00000000000000000000.log');
    renameSync(segment, outside);
    symlinkSync(outside, segment);
    const before = readFileSync(outside);
    const append = await runWithInput(['append', dir], 'two\n');
    expect(append.code).toBe(2);
    expect(append.stdout).toBe('');
    expect(oneLine(append.stderr)).toContain(
      `loglab: UNSAFE_ENTRY: storage: ${segment} is a symbolic link (to ${outside})`,
    );
    expect(readFileSync(outside)).toEqual(before);
  });

  it('a directory it cannot create is one line and exit 2', async () => {
    const file = join(newDir(), 'notes.txt');
    writeFileSync(file, 'hello');
    const append = await runWithInput(['append', join(file, 'log')], 'a\n');
    expect(append.code).toBe(2);
    expect(append.stdout).toBe('');
    expect(oneLine(append.stderr)).toMatch(/ENOTDIR/);
  });
});
