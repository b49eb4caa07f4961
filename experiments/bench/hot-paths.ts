/**
 * `loglab bench hot-paths`: the storage core's hot paths, briefly, for a CI gate that runs the
 * baseline build beside the change (`loglab ci --against REF`) and so needs a run of seconds, not
 * minutes: the unbatched append through the page cache and under `always` (each beside the plain
 * node:fs loop writing the same records, taking turns), the warm lookup beside a bare pread of
 * the same record, and the recovery scan. The same measurements as `bench storage` (its functions,
 * smaller budgets); each comparison with a plain loop is a ratio of one run, gated on its own.
 */
import type { Experiment } from '../../lab/experiment.js';
import { MiB } from '../../storage/index.js';
import { BENCH_HOT_PATHS_METRICS } from '../metrics/bench-hot-paths.js';
import { appendPairs, checksumMetrics, pairMetrics, recoveryScan } from './storage.js';
import { warmLookups } from './warm-lookup.js';

export const hotPathsBench: Experiment = {
  id: 'bench-hot-paths',
  question: 'how fast are the storage core’s hot paths: append, warm lookup, recovery scan?',
  params: {
    // Six rounds: the fewest that give a median a 95% interval (lab/stats.ts).
    rounds: { quick: 6, full: 11 },
    roundSeconds: { quick: 0.1, full: 0.5 },
    lookupLogBytes: { quick: 16 * MiB, full: 64 * MiB },
    lookupsPerRound: { quick: 20_000, full: 100_000 },
    recoverySegmentBytes: { quick: 16 * MiB, full: 64 * MiB },
  },
  metrics: BENCH_HOT_PATHS_METRICS,
  seed: 2027,
  run: async (ctx) => {
    const rounds = ctx.numberParam('rounds');
    const seconds = ctx.numberParam('roundSeconds');
    ctx.ensureFreeSpace(2 * ctx.numberParam('lookupLogBytes') + 64 * MiB);
    const none = await appendPairs(ctx, rounds, seconds, {
      durability: 'none',
      preallocatedRaw: false,
      checksummedRaw: true,
    });
    const always = await appendPairs(ctx, rounds, seconds, {
      durability: 'always',
      preallocatedRaw: false,
    });
    const metrics = [
      ...pairMetrics(ctx, 'append.none', none.pairs, 'rawFs', 'none'),
      ...checksumMetrics(ctx, none.pairs),
      ...pairMetrics(ctx, 'append.always', always.pairs, 'rawFs', 'always'),
      ...warmLookups(ctx, {
        logBytes: ctx.numberParam('lookupLogBytes'),
        rounds,
        lookupsPerRound: ctx.numberParam('lookupsPerRound'),
      }),
      recoveryScan(ctx, ctx.numberParam('recoverySegmentBytes'), rounds),
    ];
    ctx.note(
      'The hot paths of bench storage on smaller budgets: a run takes seconds, so a CI job can run it for the baseline build and the change in turns (loglab ci --against REF).',
    );
    return ctx.results({ metrics });
  },
};
