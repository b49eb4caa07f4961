import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../test/fixtures/storage-error.js';
import { tempDirs } from '../test/fixtures/temp-dir.js';
import { LogQueue } from './log-queue.js';
import { logOfQueueForTesting } from './testing/queue-log.js';

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
