/**
 * The testing entry's file surgery, used as an experiment uses it: through storage/index.ts and
 * storage/testing/index.ts only, on logs written with durability none (no preallocation, so a
 * segment's file ends at its last record).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { Log, NodeFileIO, recordSizeBytes } from '../index.js';
import {
  OFFSET_INDEX_ENTRY_BYTES,
  copyOffsetIndex,
  dropOffsetIndex,
  dropRecoveryPoint,
  linkSegmentFiles,
  offsetIndexFileBytes,
  restoreRecoveryPoint,
  restoreTail,
  rewindLogDir,
  saveRecoveryPoint,
  saveTail,
  searchIndexFile,
  segmentFileNamesIn,
  segmentFilePaths,
  segmentFilesBytes,
  snapshotLogDir,
  tearTail,
} from './index.js';

const newDir = tempDirs('log-surgery');
const BODY_BYTES = 94;
const RECORD_BYTES = recordSizeBytes(BODY_BYTES);
/** Dense: an index entry per record, so every segment's index has entries to count. */
const DENSE = { durability: 'none', indexIntervalBytes: 0 } as const;

/** A closed log of `records` records of RECORD_BYTES in segments of `segmentBytes`. */
async function writtenLog(records: number, segmentBytes = 64 * 1024): Promise<string> {
  const dir = newDir();
  const log = Log.open(dir, { ...DENSE, segmentBytes });
  for (let i = 0; i < records; i++) log.appendNoWait(Buffer.alloc(BODY_BYTES, i % 256));
  await log.close();
  return dir;
}

async function reopened(dir: string) {
  const log = Log.open(dir, DENSE);
  const seen = { endOffset: log.endOffset, recovery: log.recovery };
  await log.close();
  return seen;
}

describe('tearing a tail and moving the recovery point', () => {
  it('cuts a torn last record on the next open; restoring it brings the record back', async () => {
    const dir = await writtenLog(10);
    const logPath = segmentFilePaths(dir, 0).log;
    const tail = saveTail(logPath, 9 * RECORD_BYTES, RECORD_BYTES);
    const cleanPoint = saveRecoveryPoint(dir);

    tearTail(tail, RECORD_BYTES / 2);
    restoreRecoveryPoint(dir, null);
    expect(statSync(logPath).size).toBe(9 * RECORD_BYTES + RECORD_BYTES / 2);
    const torn = await reopened(dir);
    expect(torn.endOffset).toBe(9);
    expect(torn.recovery.startedFrom).toBe('segment-start');
    expect(torn.recovery.truncation?.discardedBytes).toBe(RECORD_BYTES / 2);

    restoreTail(tail);
    restoreRecoveryPoint(dir, cleanPoint);
    const clean = await reopened(dir);
    expect(clean.endOffset).toBe(10);
    expect(clean.recovery.scannedBytes).toBe(0);
  });

  it('checks the whole active segment on the next open once the point is dropped', async () => {
    const dir = await writtenLog(10);
    dropRecoveryPoint(dir);
    const opened = await reopened(dir);
    expect(opened.recovery.startedFrom).toBe('segment-start');
    expect(opened.recovery.scannedBytes).toBe(10 * RECORD_BYTES);
    dropRecoveryPoint(dir);
    expect(() => dropRecoveryPoint(dir)).toThrow(/ENOENT/);
  });

  it('refuses to save a tail the file does not hold', async () => {
    const dir = await writtenLog(2);
    const logPath = segmentFilePaths(dir, 0).log;
    expect(() => saveTail(logPath, RECORD_BYTES, 2 * RECORD_BYTES)).toThrow(/holds/);
  });
});

describe('undoing a roll', () => {
  it('removes the files a roll added and puts the recovery point back', async () => {
    const dir = await writtenLog(10, 10 * RECORD_BYTES);
    const snapshot = snapshotLogDir(dir);
    const log = Log.open(dir, { durability: 'group', segmentBytes: 10 * RECORD_BYTES });
    await log.append(Buffer.alloc(BODY_BYTES));
    expect(log.segments().length).toBe(2);
    await log.close();
    expect(saveRecoveryPoint(dir).equals(snapshot.recoveryPoint)).toBe(false);

    rewindLogDir(snapshot);
    expect(new Set(readdirSync(dir))).toEqual(snapshot.names);
    expect(saveRecoveryPoint(dir).equals(snapshot.recoveryPoint)).toBe(true);
    expect((await reopened(dir)).endOffset).toBe(10);
  });
});

describe('segment files', () => {
  it('lists and sizes the segment files, passing other files by', async () => {
    const dir = await writtenLog(30, 10 * RECORD_BYTES);
    const names = segmentFileNamesIn(dir);
    expect(names.length).toBe(3 * 3);
    expect(readdirSync(dir).length).toBeGreaterThan(names.length);
    const sizes = segmentFilesBytes(dir);
    expect(sizes.logBytes).toBe(30 * RECORD_BYTES);
    const indexBytes = [0, 10, 20].reduce((sum, base) => sum + offsetIndexFileBytes(dir, base), 0);
    expect(sizes.indexBytes).toBe(indexBytes);
  });

  it('sizes an index by its entries; a dropped index is rebuilt on first lookup', async () => {
    const dir = await writtenLog(30, 10 * RECORD_BYTES);
    const before = Log.open(dir, DENSE);
    const entries = before.explainLookup(5).indexEntries;
    await before.close();
    expect(offsetIndexFileBytes(dir, 0)).toBe(entries * OFFSET_INDEX_ENTRY_BYTES);

    dropOffsetIndex(dir, 0);
    const log = Log.open(dir, DENSE);
    expect(log.read(5).body.equals(Buffer.alloc(BODY_BYTES, 5))).toBe(true);
    expect(log.explainLookup(5).indexEntries).toBe(entries);
    await log.close();
    expect(() => dropOffsetIndex(newDir(), 0)).toThrow(/ENOENT/);
  });

  it("hard-links a segment's three files into another directory", async () => {
    const from = await writtenLog(30, 10 * RECORD_BYTES);
    const to = newDir();
    linkSegmentFiles(from, to, 10);
    const [source, linked] = [segmentFilePaths(from, 10), segmentFilePaths(to, 10)];
    for (const file of ['log', 'index', 'timeIndex'] as const) {
      expect(statSync(linked[file]).ino).toBe(statSync(source[file]).ino);
    }
    expect(segmentFileNamesIn(to).sort()).toEqual(readdirSync(to).sort());
  });

  it('searches a copied index file as the log searches its own', async () => {
    const dir = await writtenLog(30, 40 * RECORD_BYTES);
    const copy = join(newDir(), 'copy.index');
    copyOffsetIndex(dir, 0, copy);
    const io = new NodeFileIO();
    const handle = io.openReadOnly(copy);
    const log = Log.open(dir, DENSE);
    for (const offset of [0, 7, 29]) {
      const expected = log.explainLookup(offset).indexEntry?.relativeOffset ?? null;
      expect(searchIndexFile(io, handle, offset).relativeOffset).toBe(expected);
    }
    await log.close();
    io.close(handle);
  });
});
