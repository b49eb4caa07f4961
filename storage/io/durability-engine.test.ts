/**
 * The engine's sync modes, `adaptive` above all: which syncs run inline on the event loop and
 * which on the thread pool. The clock (`performance.now`) is faked, so a sync "takes" what the
 * stub advances it by and the decisions do not depend on this machine's speed; `setImmediate`
 * stays real, so the loop turns when a test awaits one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StorageError } from '../errors.js';
import { MiB } from '../units.js';
import type { SyncMode } from './durability.js';
import { DurabilityEngine } from './durability-engine.js';
import type { FileHandle, FileIO } from './file-io.js';
import { INLINE_BUDGET_MS } from './loop-budget.js';

/** A FileIO of two calls, counting where each sync ran; each takes `syncMs` of the fake clock. */
class SyncCounter {
  inline = 0;
  pooled = 0;
  /** The next inline sync fails as a device error would. */
  failNext = false;
  constructor(public syncMs: number) {}

  readonly io = {
    fdatasync: () => {
      if (this.failNext) {
        this.failNext = false;
        throw new StorageError('IO_ERROR', 'fdatasync failed: EIO (the test device)');
      }
      this.inline++;
      vi.advanceTimersByTime(this.syncMs);
    },
    fdatasyncAsync: () => {
      this.pooled++;
      vi.advanceTimersByTime(this.syncMs);
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
  } as unknown as FileIO;
}

function engineOf(
  counter: SyncCounter,
  syncMode: SyncMode,
  durability: 'always' | 'group',
  fences: string[] = [],
) {
  let written = 0;
  const engine = new DurabilityEngine<number>(
    {
      durability,
      syncMode,
      groupMaxDelayMs: 0,
      groupMaxBytes: MiB,
      io: counter.io,
      subject: 'the test log',
      fencedCode: 'LOG_FENCED',
    },
    0,
    0,
  );
  engine.attach({
    beforeSync: () => ({ handle: 3 as FileHandle, point: written, endTicket: written }),
    onFence: (call) => fences.push(call),
  });
  /** One write of one ticket, reported as a design reports it. */
  const write = () => {
    written++;
    engine.wrote(written, 1024);
    return engine.acknowledged(written - 1);
  };
  /** One write, acknowledged, then a turn of the loop: a producer alone, unhurried. */
  const writeAlone = async () => {
    await write();
    await turn();
  };
  return { engine, write, writeAlone };
}

/** Lets the event loop turn: pool syncs complete, the budget's turn ends. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance'] });
});

afterEach(async () => {
  vi.useRealTimers();
  await turn();
});

describe('syncMode adaptive', () => {
  it('syncs the first write on the pool, then inline within the budget of a turn', async () => {
    const counter = new SyncCounter(0.1);
    const { write } = engineOf(counter, 'adaptive', 'always');
    await write();
    expect([counter.inline, counter.pooled]).toEqual([0, 1]); // not measured yet
    await turn();
    // One turn, one write after another: each inline sync is 0.1 ms of the budget.
    const fitting = Math.floor(INLINE_BUDGET_MS / 0.1 + 1e-9);
    for (let i = 0; i < fitting; i++) write();
    expect([counter.inline, counter.pooled]).toEqual([fitting, 1]);
    // Over budget: neither now nor in this turn's check phase, but inline in the next turn.
    const overBudget = write();
    let syncsInThisTurn = -1;
    setImmediate(() => {
      syncsInThisTurn = counter.inline;
    });
    await overBudget;
    expect(syncsInThisTurn).toBe(fitting);
    expect([counter.inline, counter.pooled]).toEqual([fitting + 1, 1]);
  });

  it('shares one budget a turn among logs: a sync that waited waits again when another took it', async () => {
    const counter = new SyncCounter(INLINE_BUDGET_MS * 0.6); // one fits a turn, not two
    const first = engineOf(counter, 'adaptive', 'always');
    const second = engineOf(counter, 'adaptive', 'always');
    await first.writeAlone(); // each log's first sync, on the pool
    await second.writeAlone();
    const inlineBefore = counter.inline;
    const both = [first.write(), second.write()];
    expect(counter.inline - inlineBefore).toBe(1); // the second waits for a turn
    await both[1];
    expect(counter.inline - inlineBefore).toBe(2);
    // Its turn's budget taken, the first log's next write waits; no sync went to the pool.
    await Promise.all([first.write(), second.write()]);
    expect([counter.inline - inlineBefore, counter.pooled]).toEqual([4, 2]);
  });

  it('holds a flush or close back until a sync waiting for a turn has run', async () => {
    const counter = new SyncCounter(INLINE_BUDGET_MS * 0.6);
    const { engine, write, writeAlone } = engineOf(counter, 'adaptive', 'always');
    await writeAlone();
    await writeAlone();
    write(); // inline: the budget of this turn is spent
    const waiting = write();
    expect(engine.inFlight).not.toBeNull();
    const syncsBeforeAction = await engine.exclusive(() => counter.inline);
    expect(syncsBeforeAction).toBe(3);
    await waiting;
  });

  it('fences when a sync that waited for a turn fails, and its write is not acknowledged', async () => {
    const counter = new SyncCounter(INLINE_BUDGET_MS * 0.6);
    const fences: string[] = [];
    const { engine, write, writeAlone } = engineOf(counter, 'adaptive', 'always', fences);
    await writeAlone();
    await writeAlone();
    write();
    const failing = write();
    counter.failNext = true;
    await expect(failing).rejects.toMatchObject({ code: 'LOG_FENCED' });
    expect(fences).toEqual(['sync']);
    expect(engine.fenced).not.toBeNull();
    expect(engine.inFlight).toBeNull();
  });

  it('never syncs inline on a device whose syncs take longer than the budget', async () => {
    const counter = new SyncCounter(INLINE_BUDGET_MS * 1.2);
    const { writeAlone } = engineOf(counter, 'adaptive', 'always');
    for (let i = 0; i < 5; i++) await writeAlone();
    expect([counter.inline, counter.pooled]).toEqual([0, 5]);
  });

  it('goes back to the pool when a sync took longer than the budget', async () => {
    const counter = new SyncCounter(0.1);
    const { write, writeAlone } = engineOf(counter, 'adaptive', 'always');
    await writeAlone();
    counter.syncMs = INLINE_BUDGET_MS * 2; // this inline sync is slow: the next goes to the pool
    await writeAlone();
    await write();
    expect([counter.inline, counter.pooled]).toEqual([1, 2]);
  });

  it('after a stall, syncs on the pool until the stall has faded from its estimate', async () => {
    const counter = new SyncCounter(0.1);
    const { write, writeAlone } = engineOf(counter, 'adaptive', 'always');
    await writeAlone();
    counter.syncMs = 5; // one inline sync stalls
    await write();
    counter.syncMs = 0.1;
    const pooledBefore = counter.pooled;
    while (counter.inline === 1) await writeAlone();
    // 5 ms fading by a tenth a sync is under the 0.5 ms budget after 22 syncs (5 x 0.9^22).
    expect(counter.pooled - pooledBefore).toBe(22);
  });

  it('syncs inline a group of one write, on the pool a group of several', async () => {
    const counter = new SyncCounter(0.1);
    const { write, writeAlone } = engineOf(counter, 'adaptive', 'group');
    await writeAlone();
    await write();
    expect([counter.inline, counter.pooled]).toEqual([1, 1]);
    await turn();
    await Promise.all([write(), write(), write()]);
    expect([counter.inline, counter.pooled]).toEqual([1, 2]);
  });

  it('under always, gives each write owed a sync while the pool synced its own', async () => {
    const counter = new SyncCounter(0.01);
    const { write } = engineOf(counter, 'adaptive', 'always');
    const first = write(); // the pool's
    const owed = [write(), write(), write()];
    await Promise.all([first, ...owed]);
    // The first pool sync covered the four writes; each of the three after it still got a sync
    // of its own, started after it was written: the second on the pool (it covers three
    // writes), the two after it inline (they cover none).
    expect([counter.inline, counter.pooled]).toEqual([2, 2]);
  });
});

describe('syncMode inline and thread-pool', () => {
  for (const syncMode of ['inline', 'thread-pool'] as const) {
    it(`${syncMode} syncs every write ${syncMode === 'inline' ? 'inline' : 'on the pool'}`, async () => {
      const counter = new SyncCounter(0.1);
      const { write } = engineOf(counter, syncMode, 'always');
      for (let i = 0; i < 20; i++) await write();
      const expected = syncMode === 'inline' ? [20, 0] : [0, 20];
      expect([counter.inline, counter.pooled]).toEqual(expected);
    });
  }
});
