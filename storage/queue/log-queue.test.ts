import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/fixtures/storage-error.js';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { LogQueue } from './log-queue.js';
import { SimDisk } from '../sim/sim-disk.js';
import { logOfQueueForTesting } from './log-queue.js';

const newDir = tempDirs('log-queue');

describe('design B retention and checkpoints', () => {
  it('deletes segments below the saved head once everything is consumed', async () => {
    const queue = LogQueue.open(newDir(), { segmentBytes: 4096, checkpointEveryDeletes: 10 });
    for (let i = 0; i < 200; i++) await queue.send(Buffer.alloc(100, i));
    const segmentsBefore = logOfQueueForTesting(queue).segments();
    expect(segmentsBefore.length).toBeGreaterThan(5);
    for (
      let m = queue.receive({ visibilityTimeoutMs: 1000 });
      m !== null;
      m = queue.receive({ visibilityTimeoutMs: 1000 })
    ) {
      await queue.delete(m.id);
    }
    expect(queue.stats()).toMatchObject({
      head: 200,
      cursor: 200,
      end: 200,
      inFlight: 0,
      ready: 0,
    });
    const remaining = logOfQueueForTesting(queue).segments();
    expect(remaining.length).toBe(1);
    for (const segment of segmentsBefore.slice(0, -1))
      expect(existsSync(segment.logPath)).toBe(false);
    await queue.close();
  });

  it('keeps the disk from growing while consumers keep up', async () => {
    const queue = LogQueue.open(newDir(), { segmentBytes: 8192, checkpointEveryDeletes: 5 });
    const sizes: number[] = [];
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 20; i++) await queue.send(Buffer.alloc(200, i));
      for (
        let m = queue.receive({ visibilityTimeoutMs: 1000 });
        m !== null;
        m = queue.receive({ visibilityTimeoutMs: 1000 })
      ) {
        await queue.delete(m.id);
      }
      sizes.push(queue.stats().diskBytes);
    }
    expect(Math.max(...sizes.slice(10))).toBeLessThanOrEqual(2 * 8192);
    await queue.close();
  });

  it('holds the head at the oldest message still in flight', async () => {
    const queue = LogQueue.open(newDir(), { checkpointEveryDeletes: 1 });
    for (let i = 0; i < 5; i++) await queue.send(Buffer.from(`m${i}`));
    const messages = [0, 1, 2, 3, 4].map(() => queue.receive({ visibilityTimeoutMs: 1000 })!);
    await queue.delete(messages[0]!.id);
    await queue.delete(messages[2]!.id);
    expect(queue.stats().head).toBe(1);
    await queue.delete(messages[1]!.id);
    expect(queue.stats().head).toBe(3);
    await queue.close();
  });

  it('writes its log directly when asked (directWrites), and delivers each message it sent', async () => {
    const queue = LogQueue.open(newDir(), { durability: 'always', directWrites: true });
    const log = logOfQueueForTesting(queue);
    for (let i = 0; i < 100; i++) {
      await queue.send(Buffer.from(`m${i}`));
      const message = queue.receive({ visibilityTimeoutMs: 1000 })!;
      expect(message.body.toString()).toBe(`m${i}`);
      await queue.delete(message.id);
    }
    expect(log.directWrites).not.toBe('off');
    await queue.close();
  });

  it('redelivers from the saved head after a restart (at-least-once)', async () => {
    const dir = newDir();
    const queue = LogQueue.open(dir, { checkpointEveryDeletes: 1_000, checkpointIntervalMs: 1e9 });
    for (let i = 0; i < 4; i++) await queue.send(Buffer.from(`m${i}`));
    const [first, second] = [
      queue.receive({ visibilityTimeoutMs: 1000 })!,
      queue.receive({ visibilityTimeoutMs: 1000 })!,
    ];
    await queue.delete(second.id);
    await queue.close();
    const reopened = LogQueue.open(dir);
    expect(reopened.stats()).toMatchObject({ head: first.id, cursor: first.id });
    expect(reopened.receive({ visibilityTimeoutMs: 1000 })!.id).toBe(first.id);
    expect(reopened.receive({ visibilityTimeoutMs: 1000 })!.id).toBe(second.id);
    await reopened.close();
  });
});

describe('design B: one writer per queue', () => {
  it("refuses a second writer with QUEUE_LOCKED naming the queue's directory, not LOG_LOCKED", async () => {
    const dir = newDir();
    const first = LogQueue.open(dir);
    const error = errorOf(() => LogQueue.open(dir));
    expect(error).toMatchObject({ code: 'QUEUE_LOCKED', context: { file: join(dir, '.lock') } });
    expect(error.message).toContain(`cannot open the queue in ${dir} for writing`);
    expect(error.message).toContain('close that writer first');
    expect(error.context.holder).toContain(`pid ${process.pid} `);
    expect(error.cause).toMatchObject({ code: 'LOG_LOCKED' });
    await first.send(Buffer.from('still mine'));
    await first.close();
    const second = LogQueue.open(dir);
    expect(second.receive({ visibilityTimeoutMs: 1000 })?.body.toString()).toBe('still mine');
    await second.close();
  });
});

describe('design B: a consumer that keeps up', () => {
  it('takes the message just sent from memory, not from the file, and reads again what it must', async () => {
    const queue = LogQueue.open(newDir(), { segmentBytes: 4096 });
    const reads = () => queue.counters.readCalls;
    const before = reads();
    for (let i = 0; i < 50; i++) {
      const id = await queue.send(Buffer.alloc(100, i));
      const message = queue.receive({ visibilityTimeoutMs: 60_000 });
      expect(message).toMatchObject({ id, body: Buffer.alloc(100, i), attempt: 1 });
      await queue.delete(id);
    }
    // Fifty messages over several rolls: none read back.
    expect(reads()).toBe(before);
    // A message the consumer did not take at once comes from the file.
    const first = await queue.send(Buffer.from('first'));
    await queue.send(Buffer.from('second'));
    expect(queue.receive({ visibilityTimeoutMs: 60_000 })).toMatchObject({ id: first });
    expect(reads()).toBeGreaterThan(before);
    await queue.close();
  });

  it('never hands out a message whose sync failed: the fence cut it away', async () => {
    const disk = new SimDisk({ seed: 9 });
    const queue = LogQueue.open('/queue', { io: disk, durability: 'always' });
    const kept = await queue.send(Buffer.from('kept'));
    expect(queue.receive({ visibilityTimeoutMs: 60_000 })?.id).toBe(kept);
    disk.injectFault({ kind: 'error', call: 'fdatasync', nth: 1, errno: 'EIO' });
    await expect(queue.send(Buffer.from('lost'))).rejects.toMatchObject({ code: 'QUEUE_FENCED' });
    expect(queue.receive({ visibilityTimeoutMs: 60_000 })).toBeNull();
    await queue.close();
  });

  it('gives the consumer a copy: a sender reusing its buffer does not change the message', async () => {
    const queue = LogQueue.open(newDir());
    const buffer = Buffer.from('original');
    await queue.send(buffer);
    buffer.write('changed!');
    expect(queue.receive({ visibilityTimeoutMs: 60_000 })?.body.toString()).toBe('original');
    await queue.close();
  });
});
