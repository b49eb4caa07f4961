/**
 * Property: random sends, receives, deletes, clock jumps and restarts against an in-memory model
 * of the queue contract, for both designs. The model tracks which messages exist (sent and not
 * deleted); every delivery must be of an existing message with its exact body, and after the
 * operations every existing message is eventually delivered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/fixtures/temp-dir.js';
import { LogQueue } from './log-queue.js';
import type { Queue, QueueClock } from './queue.js';
import { SlotFileQueue } from './slot-file.js';

type Op =
  | { kind: 'send'; bytes: number; delayMs: number }
  | { kind: 'receive'; timeoutMs: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'tick'; ms: number }
  | { kind: 'restart' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      bytes: fc.integer({ min: 0, max: 200 }),
      delayMs: fc.constantFrom(0, 0, 0, 50),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('receive' as const),
      timeoutMs: fc.constantFrom(10, 100, 1000),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(5, 60, 2000) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const) }) },
);

const newDir = tempDirs('queue-prop');
/** A queue whose bookkeeping the property checks after every step. */
type CheckedQueue = Queue & { checkInvariants(): void };

/** Design B documents that deletes above the saved head come back after a restart. */
const designs: Array<[string, (dir: string, clock: QueueClock) => CheckedQueue, boolean]> = [
  [
    'design A',
    (dir, clock) => SlotFileQueue.open(dir, { clock, slotBytes: 256, chunkSlots: 8 }),
    false,
  ],
  [
    'design B',
    (dir, clock) => LogQueue.open(dir, { clock, segmentBytes: 2048, checkpointEveryDeletes: 3 }),
    true,
  ],
];

for (const [name, open, deletesAboveHeadReturn] of designs) {
  describe(`${name} against a model of the contract`, () => {
    it('delivers only existing messages with their exact bodies, and every existing one eventually', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), async (ops) => {
          const clock = {
            ms: 1_000_000,
            nowMs(): number {
              return this.ms;
            },
          };
          const dir = newDir();
          let queue = open(dir, clock);
          const existing = new Map<number, Buffer>();
          const sent = new Map<number, Buffer>();
          const received: number[] = [];
          let counter = 0;
          try {
            for (const op of ops) {
              if (op.kind === 'send') {
                const body = Buffer.alloc(op.bytes, ++counter % 256);
                const id = await queue.send(body, { delayMs: op.delayMs });
                existing.set(id, body);
                sent.set(id, body);
              } else if (op.kind === 'receive') {
                const message = queue.receive({ visibilityTimeoutMs: op.timeoutMs });
                if (message !== null) {
                  expect(existing.get(message.id)?.equals(message.body)).toBe(true);
                  received.push(message.id);
                }
              } else if (op.kind === 'delete' && received.length > 0) {
                const id = received.splice(op.pick % received.length, 1)[0]!;
                if (existing.has(id)) {
                  await queue.delete(id).then(
                    () => existing.delete(id),
                    (error) => expect(error.code).toBe('UNKNOWN_MESSAGE'),
                  );
                }
              } else if (op.kind === 'tick') {
                clock.ms += op.ms;
              } else if (op.kind === 'restart') {
                const head = queue.stats().head;
                await queue.close();
                if (deletesAboveHeadReturn) {
                  for (const [id, body] of sent)
                    if (id >= head && !existing.has(id)) existing.set(id, body);
                }
                queue = open(dir, clock);
                received.length = 0;
              }
              queue.checkInvariants();
            }
            clock.ms += 1_000_000;
            const drained = new Set<number>();
            for (
              let m = queue.receive({ visibilityTimeoutMs: 1e9 });
              m !== null;
              m = queue.receive({ visibilityTimeoutMs: 1e9 })
            ) {
              expect(existing.get(m.id)?.equals(m.body)).toBe(true);
              drained.add(m.id);
            }
            for (const id of existing.keys()) expect(drained.has(id)).toBe(true);
          } finally {
            await queue.close();
          }
        }),
        { numRuns: 100 },
      );
    });
  });
}
