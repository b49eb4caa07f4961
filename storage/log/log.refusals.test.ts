/**
 * What the log refuses, and why (issue 14): each case an operator or a second program can cause
 * from outside the process — a second writer, a lost or renamed segment, bytes after a sealed
 * segment, a stale or wrong recovery point, a damaged length, a deleted index, offsets near 2^53,
 * a read-only look — on a real directory. None of them may lose, invent or reuse an offset.
 */
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  closeSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import type { WriterOutcome } from '../../test/fixtures/log-writer-child.js';
import { NodeFileIO } from '../io/node-file-io.js';
import { Log } from './log.js';
import { writeRecoveryPoint } from '../segments/recovery-point.js';
import { RECOVERY_POINT_FILE, segmentFileName } from '../segments/segment-files.js';
import { encodeRecordInto, recordSizeBytes } from '../record/record.js';
import { errorOf, rejectionOf } from '../../test/fixtures/storage-error.js';

const newDir = tempDirs('refusals');
const CHILD = new URL('../../test/fixtures/log-writer-child.ts', import.meta.url).pathname;
const SMALL = { segmentBytes: 1024, indexIntervalBytes: 100 } as const;

const bodyOf = (offset: number): Buffer =>
  Buffer.from(`record ${offset} `.repeat(1 + (offset % 3)));

/** A closed log of `count` records over several 1 KiB segments. */
function writtenLog(count: number, options: Parameters<typeof Log.open>[1] = SMALL): string {
  const dir = newDir();
  const log = Log.open(dir, options);
  for (let i = 0; i < count; i++) log.appendNoWait(bodyOf(i));
  log.close();
  return dir;
}

/**
 * Every file of `dir` with its bytes and mtime: what "changes nothing" is checked against. The
 * writer lock's file is left out: a refused writer still took (and wrote) the lock first.
 */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name === '.lock') continue;
    const file = join(dir, name);
    files[name] = `${statSync(file).mtimeMs} ${readFileSync(file).toString('hex')}`;
  }
  return files;
}

function segmentFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.log'))
    .sort();
}

function expectAll(log: Log, from: number, to: number): void {
  const reader = log.reader(from);
  for (let offset = from; offset < to; offset++) {
    expect(log.read(offset).body.equals(bodyOf(offset)), `read(${offset})`).toBe(true);
    expect(reader.next()?.offset, `reader at ${offset}`).toBe(offset);
  }
  expect(reader.next()).toBeNull();
  expect(log.endOffset).toBe(to);
}

describe('a second writer', () => {
  it('is refused in the same process, naming the holder, and gets in after close', () => {
    const dir = writtenLog(10);
    const first = Log.open(dir, SMALL);
    const refused = errorOf(() => Log.open(dir, SMALL));
    expect(refused.code).toBe('LOG_LOCKED');
    expect(refused.context.holder).toContain(`pid ${process.pid}`);
    expect(Log.open(dir, { ...SMALL, readOnly: true }).endOffset).toBe(10);
    first.close();
    Log.open(dir, SMALL).close();
  });

  it('in another process: of two racing writers exactly one writes, the other learns why', async () => {
    const dir = newDir();
    const children = [new WriterChild(dir, 3000), new WriterChild(dir, 3000)];
    await Promise.all(children.map((child) => child.ready()));
    for (const child of children) child.go();
    const outcomes = await Promise.all(children.map((child) => child.outcome()));
    await Promise.all(children.map((child) => child.finish()));
    const winners = outcomes.filter((outcome) => outcome.code === undefined);
    expect(winners).toHaveLength(1);
    expect(outcomes.find((outcome) => outcome.code !== undefined)?.code).toBe('LOG_LOCKED');
    expect(winners[0]).toMatchObject({ first: 0, last: 2999 });
    const log = Log.open(dir, { readOnly: true });
    expect(log.endOffset).toBe(3000);
    for (let offset = 0; offset < 3000; offset++) {
      expect(log.read(offset).body.toString()).toBe(`${winners[0]!.pid}:${offset}`);
    }
  }, 60_000);
});

describe('a broken segment chain', () => {
  it('refuses a log whose middle segment is missing, deleting nothing, whatever the recovery point says', () => {
    const dir = writtenLog(300);
    const names = segmentFiles(dir);
    expect(names.length).toBeGreaterThan(4);
    const missing = names[2]!;
    const base = Number(missing.slice(0, 20));
    const next = Number(names[3]!.slice(0, 20));
    for (const suffix of ['.log', '.index', '.timeindex'])
      rmSync(join(dir, missing.replace('.log', suffix)));
    // A point before the gap, as a crash under an older loglab left it.
    writeRecoveryPoint(new NodeFileIO(), dir, {
      segmentBaseOffset: 0,
      positionBytes: 0,
      nextOffset: 0,
    });
    const before = snapshot(dir);
    for (const readOnly of [false, true]) {
      const refused = errorOf(() => Log.open(dir, { ...SMALL, readOnly }));
      expect(refused.code).toBe('LOG_GAP');
      expect(refused.context).toMatchObject({ fromOffset: base, toOffset: next - 1 });
      expect(refused.message).toContain(segmentFileName(base, '.log'));
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses a segment renamed by hand and cuts none of its records', () => {
    const dir = writtenLog(300);
    const names = segmentFiles(dir);
    const renamed = names[2]!;
    const base = Number(renamed.slice(0, 20));
    for (const suffix of ['.log', '.index', '.timeindex']) {
      renameSync(
        join(dir, segmentFileName(base, suffix)),
        join(dir, segmentFileName(base + 3, suffix)),
      );
    }
    const before = snapshot(dir);
    const refused = errorOf(() => Log.open(dir, SMALL));
    expect(refused.code).toBe('SEGMENT_NAME_MISMATCH');
    expect(refused.message).toContain(
      `rename it (with its .index and .timeindex) to ${renamed}`.replace('rename', 'Rename'),
    );
    expect(snapshot(dir)).toEqual(before);
    for (const suffix of ['.log', '.index', '.timeindex']) {
      renameSync(
        join(dir, segmentFileName(base + 3, suffix)),
        join(dir, segmentFileName(base, suffix)),
      );
    }
    expectAll(Log.open(dir, SMALL), 0, 300);
  });

  it('refuses the active segment renamed, instead of handing its offsets out again', () => {
    const dir = writtenLog(300);
    const last = segmentFiles(dir).at(-1)!;
    const base = Number(last.slice(0, 20));
    renameSync(join(dir, last), join(dir, segmentFileName(base + 1, '.log')));
    expect(errorOf(() => Log.open(dir, SMALL)).code).toBe('SEGMENT_NAME_MISMATCH');
    rmSync(join(dir, segmentFileName(base + 1, '.log')));
    expect(errorOf(() => Log.open(dir, SMALL)).code).toBe('LOG_GAP');
  });

  for (const [what, extra] of [
    ['zero bytes', Buffer.alloc(64)],
    ['garbage', Buffer.alloc(64, 0xa7)],
  ] as const) {
    it(`reads across ${what} after a sealed segment's last record and reports them`, () => {
      const dir = writtenLog(300);
      const sealed = segmentFiles(dir)[1]!;
      appendFileSync(join(dir, sealed), extra);
      const log = Log.open(dir, SMALL);
      expect(log.recovery.warnings).toEqual([
        expect.stringContaining(
          `${sealed}: 64 ${what === 'garbage' ? 'bytes that are not records' : 'zero bytes'}`,
        ),
      ]);
      expectAll(log, 0, 300);
      log.appendNoWait(bodyOf(300));
      log.close();
      expectAll(Log.open(dir, { readOnly: true }), 0, 301);
    });
  }
});

describe('a recovery point that disagrees with the data', () => {
  const pointTo = (
    dir: string,
    segmentBaseOffset: number,
    positionBytes: number,
    nextOffset: number,
  ): void =>
    writeRecoveryPoint(new NodeFileIO(), dir, { segmentBaseOffset, positionBytes, nextOffset });

  it('inside a sealed segment, on a record boundary or not, costs a rescan and no record', () => {
    const dir = writtenLog(300);
    const log = Log.open(dir, { ...SMALL, readOnly: true });
    const record = log.read(40);
    log.close();
    for (const [position, next] of [
      [record.positionBytes, 40],
      [record.positionBytes + 3, 40],
      [record.positionBytes, 41],
    ]) {
      pointTo(dir, record.segmentBaseOffset, position!, next!);
      const reopened = Log.open(dir, SMALL);
      expect(reopened.recovery.truncation).toBeNull();
      expect(reopened.recovery.removedSegments).toEqual([]);
      expectAll(reopened, 0, 300);
      reopened.close();
    }
  });

  it('naming a segment retention removed, stands at the oldest one left; past its start, costs a rescan', () => {
    const dir = writtenLog(300);
    const log = Log.open(dir, SMALL);
    const second = log.segments()[1]!.baseOffset;
    log.deleteSegmentsBelow(second);
    log.close();
    pointTo(dir, 0, recordSizeBytes(bodyOf(0).length), 1);
    const retained = Log.open(dir, SMALL);
    expect(retained.recovery.startedFrom).toBe('recovery-point');
    expect(retained.recovery.recoveryPointProblem).toBeNull();
    expectAll(retained, second, 300);
    retained.close();
    // Offsets the removed segment cannot have held: the point says nothing of the data.
    pointTo(dir, 0, recordSizeBytes(bodyOf(0).length), second + 1);
    const rescanned = Log.open(dir, SMALL);
    expect(rescanned.recovery.startedFrom).toBe('segment-start');
    expect(rescanned.recovery.recoveryPointProblem).toMatch(/names segment 0, which is gone/);
    expectAll(rescanned, second, 300);
    rescanned.close();
  });

  it('with a next offset past the data, invents no offsets', () => {
    const dir = writtenLog(300);
    const last = segmentFiles(dir).at(-1)!;
    pointTo(dir, Number(last.slice(0, 20)), statSync(join(dir, last)).size, 10_300);
    const log = Log.open(dir, SMALL);
    expect(log.recovery.recoveryPointProblem).toMatch(/disagrees with the data/);
    expectAll(log, 0, 300);
    expect(log.appendNoWait(bodyOf(300))).toBe(300);
    log.close();
  });

  it('when the point file is gone, keeps a damaged record that good ones follow', () => {
    const dir = writtenLog(300);
    const log = Log.open(dir, { ...SMALL, readOnly: true });
    const record = log.read(log.segments().at(-1)!.baseOffset + 1);
    log.close();
    flipByte(
      join(dir, segmentFileName(record.segmentBaseOffset, '.log')),
      record.positionBytes + 20,
    );
    rmSync(join(dir, RECOVERY_POINT_FILE));
    const reopened = Log.open(dir, SMALL);
    expect(reopened.recovery.truncation).toBeNull();
    expect(reopened.recovery.warnings).toEqual([
      expect.stringContaining(`offsets ${record.offset} to ${record.offset}`),
    ]);
    expect(errorOf(() => reopened.read(record.offset)).code).toBe('CORRUPT_RECORD');
    expect(reopened.endOffset).toBe(300);
    expect(reopened.read(299).body.equals(bodyOf(299))).toBe(true);
  });
});

describe('lookups after a damaged length', () => {
  it('find the intact records after it by offset, as the reader does', () => {
    const dir = writtenLog(600, { segmentBytes: 8 * 1024, indexIntervalBytes: 2048 });
    const log = Log.open(dir, { readOnly: true });
    const sealed = log.segments()[0]!;
    const next = log.segments()[1]!.baseOffset;
    const damaged = log.read(next - 2);
    log.close();
    // +128 KiB: still under the 1 MiB record limit, and past the end of the segment.
    const file = join(dir, segmentFileName(sealed.baseOffset, '.log'));
    const bytes = readFileSync(file);
    bytes.writeUInt32BE(
      bytes.readUInt32BE(damaged.positionBytes) + 128 * 1024,
      damaged.positionBytes,
    );
    writeFileSync(file, bytes);
    const reopened = Log.open(dir, { readOnly: true });
    expect(errorOf(() => reopened.read(next - 2)).code).toBe('CORRUPT_RECORD');
    expect(reopened.read(next - 1).body.equals(bodyOf(next - 1))).toBe(true);
    expect(reopened.read(next).body.equals(bodyOf(next))).toBe(true);
  });
});

describe('a deleted or shortened index of the active segment', () => {
  for (const [what, damage] of [
    ['deleted', (file: string) => rmSync(file)],
    ['shortened', (file: string) => writeFileSync(file, readFileSync(file).subarray(0, 12 * 8))],
  ] as const) {
    it(`is rebuilt at open when ${what}, and the segment keeps every entry after the roll`, () => {
      const options = { segmentBytes: 8 * 1024, indexIntervalBytes: 100 };
      const reference = writtenLog(150, options);
      const dir = writtenLog(150, options);
      const active = segmentFiles(dir).at(-1)!.replace('.log', '.index');
      damage(join(dir, active));
      const log = Log.open(dir, options);
      expect(log.recovery.indexEntriesRebuilt).toBeGreaterThan(0);
      for (let i = 150; i < 400; i++) log.appendNoWait(bodyOf(i));
      log.close();
      const expected = Log.open(reference, options);
      for (let i = 150; i < 400; i++) expected.appendNoWait(bodyOf(i));
      expected.close();
      const indexes = (d: string): string[] =>
        readdirSync(d)
          .filter((n) => n.endsWith('.index'))
          .map((n) => readFileSync(join(d, n)).toString('hex'));
      expect(indexes(dir)).toEqual(indexes(reference));
    });
  }
});

describe('offsets near 2^53', () => {
  it('refuses an append past the last exact offset before writing it, and the log opens again', () => {
    const dir = newDir();
    const log = Log.open(dir, { baseOffset: 9007199254740990 });
    expect(log.appendNoWait(Buffer.from('last'))).toBe(9007199254740990);
    const refused = errorOf(() => log.appendNoWait(Buffer.from('one too many')));
    expect(refused.code).toBe('OFFSET_LIMIT');
    expect(errorOf(() => log.appendBatchNoWait([Buffer.from('a')])).code).toBe('OFFSET_LIMIT');
    log.close();
    const reopened = Log.open(dir);
    expect(reopened.endOffset).toBe(9007199254740991);
    expect(reopened.read(9007199254740990).body.toString()).toBe('last');
    reopened.close();
  });

  it('opens a log holding offset 2^53 - 1 read-only, and refuses to write to it', () => {
    const dir = newDir();
    const base = Number.MAX_SAFE_INTEGER;
    const record = Buffer.alloc(recordSizeBytes(4, undefined));
    encodeRecordInto(record, 0, base, Buffer.from('edge'), undefined);
    writeFileSync(join(dir, segmentFileName(base, '.log')), record);
    expect(errorOf(() => Log.open(dir)).code).toBe('OFFSET_LIMIT');
    const log = Log.open(dir, { readOnly: true });
    expect(log.read(base).body.toString()).toBe('edge');
    expect(log.endOffset).toBe(2 ** 53);
    expect(errorOf(() => log.appendNoWait(Buffer.from('x'))).code).toBe('LOG_READ_ONLY');
  });
});

describe('a read-only open', () => {
  it('of a directory without a log creates nothing and says so', () => {
    const dir = newDir();
    expect(errorOf(() => Log.open(dir, { readOnly: true })).code).toBe('LOG_NOT_FOUND');
    expect(errorOf(() => Log.open(join(dir, 'missing'), { readOnly: true })).code).toBe(
      'LOG_NOT_FOUND',
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('of a log with a torn tail and a deleted index reads what is whole and changes no file', async () => {
    const dir = writtenLog(300);
    const last = segmentFiles(dir).at(-1)!;
    appendFileSync(join(dir, last), Buffer.from([0, 0, 0, 40, 1, 2]));
    rmSync(join(dir, segmentFiles(dir)[1]!.replace('.log', '.index')));
    const before = snapshot(dir);
    const log = Log.open(dir, { ...SMALL, readOnly: true });
    expectAll(log, 0, 300);
    expect((await rejectionOf(log.flush())).code).toBe('LOG_READ_ONLY');
    expect(errorOf(() => log.deleteSegmentsBelow(100)).code).toBe('LOG_READ_ONLY');
    log.close();
    expect(snapshot(dir)).toEqual(before);
  });
});

function flipByte(file: string, positionBytes: number): void {
  const handle = openSync(file, 'r+');
  const byte = Buffer.alloc(1);
  byte[0] = readFileSync(file)[positionBytes]! ^ 0x10;
  writeSync(handle, byte, 0, 1, positionBytes);
  closeSync(handle);
}

/** A child process (test/fixtures/log-writer-child.ts) that opens the log and appends when told. */
class WriterChild {
  readonly #child;
  readonly #lines: AsyncIterator<string>;
  readonly #exited: Promise<number | null>;

  constructor(dir: string, records: number) {
    this.#child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(records)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.#lines = createInterface({ input: this.#child.stdout })[Symbol.asyncIterator]();
    this.#exited = new Promise((resolve) => this.#child.on('exit', (code) => resolve(code)));
  }

  async ready(): Promise<void> {
    expect((await this.#lines.next()).value).toBe('ready');
  }

  go(): void {
    this.#child.stdin.write('go\n');
  }

  async outcome(): Promise<WriterOutcome> {
    return JSON.parse((await this.#lines.next()).value as string) as WriterOutcome;
  }

  finish(): Promise<number | null> {
    this.#child.stdin.end();
    return this.#exited;
  }
}
