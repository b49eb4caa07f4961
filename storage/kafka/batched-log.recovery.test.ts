/**
 * Recovery of the batched log: a tail torn at any byte or with a flipped bit is cut at the last
 * whole batch; damage in a sealed segment is refused or, away from its end, never served; power
 * cuts on the simulated disk lose nothing acknowledged under `always` and `group`.
 */
import { cpSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { isStorageError } from '../errors.js';
import type { DurabilityPolicy, SyncMode } from '../io/durability.js';
import { SimDisk, SimPowerCutError } from '../sim/sim-disk.js';
import { BatchedLog } from './batched-log.js';
import type { BatchLocation, BatchedRecordInput } from './batched-log-records.js';

const newDir = tempDirs('batched-recovery');
const FIRST_LOG = '00000000000000000000.log';

function recordValue(offset: number): Buffer {
  return Buffer.from(`value ${offset} `.repeat(1 + (offset % 5)));
}

function recordsFrom(first: number, count: number): BatchedRecordInput[] {
  return Array.from({ length: count }, (_, i) => ({
    value: recordValue(first + i),
    timestampMs: 1_000 + first + i,
  }));
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isStorageError(error)) return error.code;
    throw error;
  }
  return 'none thrown';
}

/** Every offset of the log reads back the value it was appended with. */
function expectIntact(log: BatchedLog, where: string): void {
  for (let offset = log.startOffset; offset < log.endOffset; offset++) {
    expect(
      Buffer.from(log.read(offset).value!).equals(recordValue(offset)),
      `${where}: ${offset}`,
    ).toBe(true);
  }
  expect([...log.records()].length, where).toBe(log.endOffset - log.startOffset);
}

/** A copy of `dir` as a crash would leave it: files as they are, no lock held. */
function copyOf(dir: string): string {
  const copy = newDir();
  cpSync(dir, copy, { recursive: true, filter: (source) => !source.endsWith('.lock') });
  return copy;
}

/** Three synced batches, then a fourth written after the last recovery point. */
interface UnsyncedTail {
  readonly dir: string;
  readonly log: BatchedLog;
  readonly last: BatchLocation;
}

async function logWithUnsyncedTail(): Promise<UnsyncedTail> {
  const dir = newDir();
  const log = BatchedLog.open(dir, { indexIntervalBytes: 100 });
  for (let first = 0; first < 30; first += 10) await log.appendBatch(recordsFrom(first, 10));
  await log.flush();
  const last = await log.appendBatch(recordsFrom(30, 6));
  return { dir, log, last };
}

describe('a torn tail', () => {
  it('cut at every byte of the last batch recovers to the batch boundary before it', async () => {
    const { dir, log, last } = await logWithUnsyncedTail();
    const end = last.positionBytes + last.sizeBytes;
    for (let cut = last.positionBytes; cut < end; cut++) {
      const copy = copyOf(dir);
      truncateSync(join(copy, FIRST_LOG), cut);
      const recovered = BatchedLog.open(copy, { indexIntervalBytes: 100 });
      const where = `cut at ${cut}`;
      expect(recovered.endOffset, where).toBe(30);
      expect(recovered.recovery.startedFrom, where).toBe('recovery-point');
      expect(recovered.recovery.truncation?.positionBytes ?? last.positionBytes, where).toBe(
        last.positionBytes,
      );
      expect(statSync(join(copy, FIRST_LOG)).size, where).toBe(last.positionBytes);
      if (cut % 37 === 0) {
        expectIntact(recovered, where);
        await recovered.appendBatch(recordsFrom(30, 3));
        expectIntact(recovered, `${where}, appended after`);
      }
      await recovered.close();
    }
    await log.close();
  });

  it('cut after a clean close, the recovery point past the end, is scanned from the start', async () => {
    const { dir, log, last } = await logWithUnsyncedTail();
    await log.close();
    for (const cut of [last.positionBytes + 1, last.positionBytes + 60, last.positionBytes + 61]) {
      const copy = copyOf(dir);
      truncateSync(join(copy, FIRST_LOG), cut);
      const recovered = BatchedLog.open(copy);
      expect(recovered.recovery.startedFrom).toBe('segment-start');
      expect(recovered.endOffset).toBe(30);
      expectIntact(recovered, `cut at ${cut}`);
      await recovered.close();
    }
  });
});

describe('a flipped bit', () => {
  it("in the tail batch is cut, wherever it lands (the leader epoch is outside Kafka's CRC)", async () => {
    const { dir, log, last } = await logWithUnsyncedTail();
    for (let byte = 0; byte < last.sizeBytes; byte++) {
      const copy = copyOf(dir);
      const file = join(copy, FIRST_LOG);
      const bytes = readFileSync(file);
      bytes[last.positionBytes + byte]! ^= 1 << (byte % 8);
      writeFileSync(file, bytes);
      const recovered = BatchedLog.open(copy, { indexIntervalBytes: 100 });
      const where = `bit ${byte % 8} of byte ${byte}`;
      const inLeaderEpoch = byte >= 12 && byte < 16;
      expect(recovered.endOffset, where).toBe(inLeaderEpoch ? 36 : 30);
      expect(recovered.recovery.truncation === null, where).toBe(inLeaderEpoch);
      expectIntact(recovered, where);
      await recovered.close();
    }
    await log.close();
  });

  it("in a sealed segment's last batch refuses the open; elsewhere its batch is never served", async () => {
    const dir = newDir();
    const log = BatchedLog.open(dir, { segmentBytes: 1024, indexIntervalBytes: 100 });
    const placed: BatchLocation[] = [];
    for (let first = 0; first < 60; first += 4) {
      placed.push(await log.appendBatch(recordsFrom(first, 4)));
    }
    await log.close();
    const inFirst = placed.filter((p) => p.segmentBaseOffset === 0);
    expect(inFirst.length).toBeGreaterThan(2);
    const flip = (target: BatchLocation, byte: number): string => {
      const copy = copyOf(dir);
      const file = join(copy, FIRST_LOG);
      const bytes = readFileSync(file);
      bytes[target.positionBytes + byte]! ^= 0x10;
      writeFileSync(file, bytes);
      return copy;
    };
    const tail = flip(inFirst[inFirst.length - 1]!, 70);
    expect(codeOf(() => BatchedLog.open(tail))).toBe('CORRUPT_BATCH');
    expect(codeOf(() => BatchedLog.open(tail, { readOnly: true }))).toBe('CORRUPT_BATCH');
    const middle = inFirst[1]!;
    const opened = BatchedLog.open(flip(middle, 70));
    expect(codeOf(() => opened.read(middle.baseOffset))).toBe('CORRUPT_BATCH');
    expect(codeOf(() => opened.read(middle.lastOffset))).toBe('CORRUPT_BATCH');
    expect(codeOf(() => [...opened.records(0)])).toBe('CORRUPT_BATCH');
    for (let offset = 0; offset < 60; offset++) {
      if (offset >= middle.baseOffset && offset <= middle.lastOffset) continue;
      expect(Buffer.from(opened.read(offset).value!).equals(recordValue(offset))).toBe(true);
    }
    await opened.close();
  });
});

const SIM_DIR = '/data/batched';

/** Inline syncs: a fault hits the append that caused it (power cuts below cover both modes). */
function openSim(
  disk: SimDisk,
  durability: DurabilityPolicy,
  syncMode: SyncMode = 'inline',
): BatchedLog {
  return BatchedLog.open(SIM_DIR, {
    io: disk,
    durability,
    segmentBytes: 1536,
    indexIntervalBytes: 128,
    groupMaxDelayMs: 0,
    syncMode,
  });
}

/** Appends batches until the power fails; returns the offsets acknowledged and attempted. */
async function appendUntilCut(
  log: BatchedLog,
  seed: number,
): Promise<{ acked: number; tried: number }> {
  let acked = 0;
  let tried = 0;
  for (let i = 0; i < 30; i++) {
    const count = 1 + ((seed * 7 + i * 3) % 9);
    const records = recordsFrom(tried, count);
    tried += count;
    try {
      const placed = await log.appendBatch(records, { compression: i % 3 === 0 ? 'lz4' : 'none' });
      acked = placed.lastOffset + 1;
    } catch (error) {
      if (error instanceof SimPowerCutError || isStorageError(error, 'LOG_FENCED')) break;
      throw error;
    }
  }
  return { acked, tried };
}

describe('power cuts on the simulated disk', () => {
  const runs = [
    ['always', 'inline'],
    ['always', 'thread-pool'],
    ['group', 'inline'],
    ['group', 'thread-pool'],
    ['none', 'inline'],
  ] as const;
  for (const [durability, syncMode] of runs) {
    it(`keep every acknowledged batch under ${durability} (${syncMode} syncs) and serve nothing else`, async () => {
      let cutMidway = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const disk = new SimDisk({ seed });
        const log = openSim(disk, durability, syncMode);
        // Under none an append is one write; under always and group two calls or more.
        const callsRange = durability === 'none' ? 90 : 400;
        disk.injectFault({ kind: 'power-cut', nth: 10 + ((seed * 37) % callsRange) });
        const { acked, tried } = await appendUntilCut(log, seed);
        if (acked < tried) cutMidway++;
        const recovered = openSim(disk.crash(), durability);
        const where = `seed ${seed}, ${durability}`;
        if (durability !== 'none') expect(recovered.endOffset, where).toBeGreaterThanOrEqual(acked);
        expect(recovered.endOffset, where).toBeLessThanOrEqual(tried);
        expectIntact(recovered, where);
        const placed = await recovered.appendBatch(recordsFrom(recovered.endOffset, 2));
        expect(placed.baseOffset, where).toBe(placed.lastOffset - 1);
        expectIntact(recovered, `${where}, appended after`);
        await recovered.close();
      }
      expect(cutMidway).toBeGreaterThan(10);
    });
  }

  it('fences the log after a failed fdatasync; reopening keeps what was synced', async () => {
    const disk = new SimDisk({ seed: 7 });
    const log = openSim(disk, 'always');
    await log.appendBatch(recordsFrom(0, 5));
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    await expect(log.appendBatch(recordsFrom(5, 5))).rejects.toMatchObject({ code: 'IO_ERROR' });
    await expect(log.appendBatch(recordsFrom(5, 5))).rejects.toMatchObject({ code: 'LOG_FENCED' });
    expect(log.endOffset).toBe(5);
    await log.close();
    const reopened = openSim(disk.crash(), 'always');
    expect(reopened.endOffset).toBe(5);
    expectIntact(reopened, 'after the failed sync');
    await reopened.close();
  });
});
