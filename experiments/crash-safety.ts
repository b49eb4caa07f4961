/**
 * crash-safety: does an acknowledged message survive a power cut, under each durability policy?
 *
 * Runs the crash loop of storage/testing/crash-loop.ts for a third of the time budget per
 * policy: the raw log and both queue designs on a simulated disk that loses what was not
 * synced, with power cuts at random moments, injected fsync, write, open and read failures, and
 * power failing again during recovery. Per policy it reports the iterations, crashes and faults,
 * the acknowledged messages checked after reopening, and how many were lost — 0 is the promise
 * of `always` and `group`; under `none` the loss is measured, and the largest loss in one crash
 * is its loss window.
 *
 * Everything runs in memory: the disk under `ctx.dir` is not touched, and every figure is a
 * count, not a timing. Seeds are consecutive from one drawn from the experiment's seed; a
 * violation is listed in the notes with its seed, which `runCrashIteration` replays exactly.
 *
 * How many seeded iterations fit in the time budget is the machine's speed, so the counts of work
 * done are measurements, though each iteration replays exactly. What the code promises is a
 * counter whatever the iteration count: no broken promise under any policy, and no acknowledged
 * message lost under always or group. Its value is 0, and compare fails on any other, which a
 * measurement (never gated) would let through.
 */
import {
  type ChartDef,
  type Experiment,
  type LabContext,
  type Metric,
  type Results,
  byLabel,
  chart,
  declareMetrics,
  plot,
} from '../lab/index.js';
import { DURABILITY_POLICIES, type DurabilityPolicy } from '../storage/index.js';
import { type CrashCounts, type CrashLoopResult, runCrashLoop } from '../storage/testing/index.js';

const COUNT = { class: 'measurement', labels: ['policy'] } as const;

/** What it emits (lab/metric-catalog.ts). */
const CRASH_SAFETY_METRICS = declareMetrics('crash-safety', {
  iterations: { unit: 'count', direction: 'informational', ...COUNT, title: 'iterations' },
  crashes: { unit: 'count', direction: 'informational', ...COUNT, title: 'simulated power cuts' },
  faultsInjected: { unit: 'count', direction: 'informational', ...COUNT, title: 'faults injected' },
  ackedChecked: {
    unit: 'msgs',
    direction: 'informational',
    ...COUNT,
    title: 'acknowledged messages checked',
  },
  /** Under none: the page cache's loss, decided by when the power cuts fell. */
  lost: { unit: 'msgs', direction: 'lower', ...COUNT, title: 'acknowledged messages lost' },
  /** Under always and group: the promise, 0. */
  lostAcknowledged: {
    quantity: 'lost',
    unit: 'msgs',
    direction: 'lower',
    class: 'counter',
    labels: ['policy'],
    title: 'acknowledged messages lost',
  },
  violations: {
    unit: 'count',
    direction: 'lower',
    class: 'counter',
    labels: ['policy'],
    title: 'broken promises',
  },
  lossWindowMsgs: { unit: 'msgs', direction: 'lower', ...COUNT, title: 'most lost in one crash' },
});

const POLICY = byLabel('policy', 'durability policy', 'nominal');

/** Its chart (lab/chart-spec.ts): the promise, policy by policy. */
const CRASH_SAFETY_CHARTS: readonly ChartDef[] = [
  chart(
    'lost-messages',
    'Acknowledged messages lost after a crash, by durability policy',
    'Each bar is written as messages lost of those acknowledged and checked; always and ' +
      'group promise 0, shown as a tick on the axis.',
    plot(CRASH_SAFETY_METRICS.lost, {
      yTitle: 'acknowledged messages lost',
      x: POLICY,
      totalOf: CRASH_SAFETY_METRICS.ackedChecked.quantity,
      mark: 'bar',
    }),
  ),
];

/** Violations quoted in the notes: enough to replay, few enough to read. */
const QUOTED_VIOLATIONS = 5;
const NS_PER_SECOND = 1e9;

export const experiment: Experiment = {
  id: 'crash-safety',
  question: 'does an acknowledged message survive a power cut under each durability policy?',
  params: {},
  seed: 5,
  metrics: CRASH_SAFETY_METRICS,
  charts: CRASH_SAFETY_CHARTS,
  run,
};

async function run(ctx: LabContext): Promise<Results> {
  const firstSeed = 1 + ctx.random.nextInt(1_000_000_000);
  const budgetNs = (ctx.secondsBudget * NS_PER_SECOND) / DURABILITY_POLICIES.length;
  const results = new Map<DurabilityPolicy, CrashLoopResult>();
  for (const durability of DURABILITY_POLICIES) {
    ctx.progress.phase(`crash-safety: ${durability}`);
    const startedNs = process.hrtime.bigint();
    results.set(
      durability,
      await runCrashLoop({
        durability,
        firstSeed,
        keepGoing: (counts) => {
          ctx.progress.update(counts.iterations);
          return counts.iterations === 0 || Number(process.hrtime.bigint() - startedNs) < budgetNs;
        },
      }),
    );
  }
  ctx.progress.done();
  ctx.note(
    'The crash loop runs on a simulated disk in memory (storage/sim/sim-disk.ts); the ' +
      `disk under test is not touched. Seeds run from ${firstSeed} for each policy.`,
  );
  const violations = [...results.values()].flatMap((result) => result.violations);
  for (const quoted of violations.slice(0, QUOTED_VIOLATIONS)) ctx.note(`violation: ${quoted}`);
  return ctx.results({
    metrics: [...results].flatMap(([policy, result]) => policyMetrics(policy, result)),
    headline: headline(results),
  });
}

function policyMetrics(policy: DurabilityPolicy, result: CrashLoopResult): Metric[] {
  const labels = { policy };
  const { counts } = result;
  // Counts of work done are measurements: the budget decides how many iterations ran.
  const count = (
    quantity: 'iterations' | 'crashes' | 'faultsInjected' | 'ackedChecked' | 'lossWindowMsgs',
    value: number,
    what?: string,
  ) => CRASH_SAFETY_METRICS[quantity].measured(`crash.${policy}.${quantity}`, value, labels, what);
  const metrics: Metric[] = [
    count(
      'iterations',
      counts.iterations,
      'seeded crash-loop iterations: one target, up to three power cuts each',
    ),
    count('crashes', counts.crashes),
    count(
      'faultsInjected',
      counts.faultsInjected,
      'power cuts and injected fsync, write, open and read failures',
    ),
    count(
      'ackedChecked',
      counts.ackedChecked,
      'acknowledged, undeleted messages looked for after each reopen',
    ),
    lost(policy, counts.lost),
    CRASH_SAFETY_METRICS.violations.counter(
      `crash.${policy}.violations`,
      result.violations.length,
      labels,
      'broken promises other than loss too: wrong or damaged bodies, keys going back',
    ),
  ];
  if (policy === 'none') {
    metrics.push(
      count(
        'lossWindowMsgs',
        counts.lossWindowMsgs,
        'the most acknowledged messages one crash lost under none',
      ),
    );
  }
  return metrics;
}

/** Loss under none is the machine's; under always and group the code promises none. */
function lost(policy: DurabilityPolicy, value: number): Metric {
  const what = 'acknowledged, undeleted messages not found after a reopen';
  const name = `crash.${policy}.lost`;
  return policy === 'none'
    ? CRASH_SAFETY_METRICS.lost.measured(name, value, { policy }, what)
    : CRASH_SAFETY_METRICS.lostAcknowledged.counter(name, value, { policy }, what);
}

function headline(results: ReadonlyMap<DurabilityPolicy, CrashLoopResult>): string {
  const total = (pick: (counts: CrashCounts) => number): number =>
    [...results.values()].reduce((sum, result) => sum + pick(result.counts), 0);
  const durable = DURABILITY_POLICIES.filter((policy) => policy !== 'none');
  const countsOf = (policy: DurabilityPolicy): CrashCounts => results.get(policy)!.counts;
  const checked = durable.reduce((sum, policy) => sum + countsOf(policy).ackedChecked, 0);
  const lost = durable.reduce((sum, policy) => sum + countsOf(policy).lost, 0);
  const none = countsOf('none');
  const verdict =
    lost === 0
      ? `always and group lost none of ${checked.toLocaleString('en-US')} acknowledged messages`
      : `always and group LOST ${lost} of ${checked.toLocaleString('en-US')} acknowledged messages`;
  return (
    `${total((counts) => counts.crashes).toLocaleString('en-US')} simulated power cuts ` +
    `(${total((counts) => counts.faultsInjected).toLocaleString('en-US')} faults injected): ` +
    `${verdict}; none lost ${none.lost.toLocaleString('en-US')} of ` +
    `${none.ackedChecked.toLocaleString('en-US')}, at most ${none.lossWindowMsgs} in one crash.`
  );
}
