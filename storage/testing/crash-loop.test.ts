/**
 * The deterministic crash loop (storage/testing/crash-loop.ts) against the raw Log and both
 * queue designs, under each durability policy: random operations, a power cut at a random
 * moment (sometimes after an injected fsync, write, open or read failure, sometimes again during
 * recovery), a reopen on what survived, and a check against the model. Outside events come on
 * top (storage/testing/crash-outside-events.ts): a second writer while the target is open must be
 * refused; between a crash and the reopen, a removed or renamed segment must make the reopen
 * refuse (and the log be whole once it is put back), bytes appended to a sealed segment must be
 * reported and never served, a recovery point moved to another record boundary must cost nothing.
 * Half the raw log's iterations exercise segment reuse (log.ts): under `always` and `group` rolls
 * take the spare retention left, and power cuts land inside reused files, older records of one
 * length or of other lengths behind the tail; no older record may ever be served. Half of them
 * under those policies write directly (direct-write.ts), rewriting the block before each write.
 *
 * LOGLAB_CRASH_ITERATIONS sets the total number of iterations (default 27,000), spread evenly
 * over the nine cases; LOGLAB_CRASH_FIRST_SEED the first seed of each case (default 1), so
 * another range of seeds can be run. A failing iteration names its seed, target and policy;
 * replay it alone with `runCrashIteration({ seed, target, durability })`. The last line of the
 * run is the summary: iterations, crashes, faults injected, acknowledged messages checked, lost,
 * the rolls that reused a spare and the reopens that cut older records behind a reused segment's
 * tail (with a torn record of its own over them, or not), and the outside events by kind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DURABILITY_POLICIES, type DurabilityPolicy } from '../io/durability.js';
import {
  CRASH_TARGETS,
  type CrashCounts,
  addCounts,
  emptyCounts,
  formatCrashSummary,
  runCrashIteration,
} from './crash-loop.js';

const DEFAULT_ITERATIONS = 27_000;
/** Violations printed per failing case: enough to see the pattern, few enough to read. */
const SHOWN_VIOLATIONS = 20;

/**
 * Iterations the crash loop once found a violation in, each replayed in every run. Seed
 * 616982201: an unlink failed during retention and the next retention removed the segment after
 * the one left behind (Log.deleteSegmentsBelow): a hole the reopen refused with LOG_GAP.
 */
const FOUND = [{ seed: 616982201, target: 'log-queue', durability: 'group' }] as const;

function positiveIntegerFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer, got '${text}'`);
  }
  return value;
}

const cases = DURABILITY_POLICIES.length * CRASH_TARGETS.length;
const iterationsPerCase = Math.ceil(
  positiveIntegerFromEnv('LOGLAB_CRASH_ITERATIONS', DEFAULT_ITERATIONS) / cases,
);
const firstSeed = positiveIntegerFromEnv('LOGLAB_CRASH_FIRST_SEED', 1);
const countsByPolicy = new Map<DurabilityPolicy, CrashCounts>(
  DURABILITY_POLICIES.map((policy) => [policy, emptyCounts()]),
);

afterAll(() => {
  console.log(formatCrashSummary(countsByPolicy));
});

describe('crash loop', () => {
  it('replays an iteration exactly from its seed', async () => {
    for (const target of CRASH_TARGETS) {
      const options = { seed: 7, target, durability: 'group' as const };
      expect(await runCrashIteration(options)).toEqual(await runCrashIteration(options));
    }
  });

  for (const options of FOUND) {
    it(`passes seed ${options.seed} (${options.target}, ${options.durability}), which once failed`, async () => {
      expect((await runCrashIteration(options)).violations).toEqual([]);
    });
  }

  for (const durability of DURABILITY_POLICIES) {
    for (const target of CRASH_TARGETS) {
      const promise =
        durability === 'none'
          ? 'loses only acknowledged messages that were still pending'
          : 'loses no acknowledged message';
      it(`${target} under ${durability}: ${promise}, never serves a wrong body`, async () => {
        const counts = emptyCounts();
        const violations: string[] = [];
        for (let seed = firstSeed; seed < firstSeed + iterationsPerCase; seed++) {
          const result = await runCrashIteration({ seed, target, durability });
          addCounts(counts, result.counts);
          violations.push(...result.violations.slice(0, SHOWN_VIOLATIONS - violations.length));
        }
        addCounts(countsByPolicy.get(durability)!, counts);
        expect(violations).toEqual([]);
        expect(counts.crashes).toBeGreaterThanOrEqual(iterationsPerCase);
        expect(counts.ackedChecked).toBeGreaterThan(0);
        if (durability !== 'none') expect(counts.lost).toBe(0);
        // The disk really drops what was not synced: `none` loses acknowledged messages.
        const enough = iterationsPerCase >= 50;
        if (durability === 'none' && enough) expect(counts.lost).toBeGreaterThan(0);
        // The outside events really happen: a few percent of reopens each, some only where the
        // log has several segments, so this needs a run of the default size.
        const { outside } = counts;
        const manyEvents = iterationsPerCase >= 1000;
        if (manyEvents) expect(outside.secondWriter).toBeGreaterThan(0);
        if (manyEvents && target !== 'slot-file') {
          expect(
            Math.min(
              outside.appendedBytes,
              outside.movedPoint,
              outside.renamed,
              outside.removedMiddle + outside.removedLast,
            ),
          ).toBeGreaterThan(0);
        }
        // Segment reuse really happens, and power cuts really land in reused files: rolls reuse
        // a spare in a few percent of the raw log's rounds, and a torn record over older ones
        // is rarer still, so the last needs a run of the default size.
        if (manyEvents && target === 'log' && durability !== 'none') {
          expect(
            Math.min(counts.segmentsReused, counts.segmentsLaidOut, counts.recycledTailsCut),
          ).toBeGreaterThan(0);
        }
        // Half the raw log's iterations under `always` and `group` write directly.
        if (target === 'log' && durability !== 'none' && iterationsPerCase >= 50) {
          expect(counts.directWriteRounds).toBeGreaterThan(0);
        }
        // Page alignment (half the iterations) keeps records from crossing pages under `always`,
        // which makes a torn one rarer still there: counted over both policies that sync.
        const last = durability === 'group' && target === 'log';
        if (iterationsPerCase >= DEFAULT_ITERATIONS / cases && last) {
          const synced = ['always', 'group'] as const;
          const torn = synced.map((policy) => countsByPolicy.get(policy)!.tornOverRecycled);
          expect(torn[0]! + torn[1]!).toBeGreaterThan(0);
        }
      });
    }
  }
});
