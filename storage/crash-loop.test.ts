/**
 * The deterministic crash loop (storage/testing/crash-loop.ts) against the raw Log and both
 * queue designs, under each durability policy: random operations, a power cut at a random
 * moment (sometimes after an injected fsync, write, open or read failure, sometimes again during
 * recovery), a reopen on what survived, and a check against the model. Outside events come on
 * top (storage/testing/crash-outside-events.ts): a second writer while the target is open must be
 * refused; between a crash and the reopen, a removed or renamed segment must make the reopen
 * refuse (and the log be whole once it is put back), bytes appended to a sealed segment must be
 * reported and never served, a recovery point moved to another record boundary must cost nothing.
 *
 * LOGLAB_CRASH_ITERATIONS sets the total number of iterations (default 27,000), spread evenly
 * over the nine cases. A failing iteration names its seed, target and policy; replay it alone
 * with `runCrashIteration({ seed, target, durability })`. The last line of the run is the
 * summary: iterations, crashes, faults injected, acknowledged messages checked, lost, and the
 * outside events by kind.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DURABILITY_POLICIES, type DurabilityPolicy } from './durability.js';
import {
  CRASH_TARGETS,
  type CrashCounts,
  addCounts,
  emptyCounts,
  formatCrashSummary,
  runCrashIteration,
} from './testing/crash-loop.js';

const DEFAULT_ITERATIONS = 27_000;
/** Violations printed per failing case: enough to see the pattern, few enough to read. */
const SHOWN_VIOLATIONS = 20;

function iterationsFromEnv(): number {
  const text = process.env['LOGLAB_CRASH_ITERATIONS'];
  if (text === undefined || text === '') return DEFAULT_ITERATIONS;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error(`LOGLAB_CRASH_ITERATIONS must be a positive integer, got '${text}'`);
  }
  return value;
}

const cases = DURABILITY_POLICIES.length * CRASH_TARGETS.length;
const iterationsPerCase = Math.ceil(iterationsFromEnv() / cases);
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

  for (const durability of DURABILITY_POLICIES) {
    for (const target of CRASH_TARGETS) {
      const promise = durability === 'none'
        ? 'loses only acknowledged messages that were still pending'
        : 'loses no acknowledged message';
      it(`${target} under ${durability}: ${promise}, never serves a wrong body`, async () => {
        const counts = emptyCounts();
        const violations: string[] = [];
        for (let seed = 1; seed <= iterationsPerCase; seed++) {
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
          expect(Math.min(outside.appendedBytes, outside.movedPoint, outside.renamed,
            outside.removedMiddle + outside.removedLast)).toBeGreaterThan(0);
        }
      });
    }
  }
});
