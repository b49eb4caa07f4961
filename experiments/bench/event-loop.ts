/**
 * `loglab bench event-loop`: how long the event loop waits while 16 producers append with their
 * acknowledgements, under `always` and `group`, with the engine's fdatasyncs in each sync mode:
 * `adaptive` (the default), on the thread pool and inline on the event loop. A program that serves anything else beside its
 * appends (an HTTP server, a consumer) feels this delay on every other callback.
 *
 * The delay is measured as `perf_hooks.monitorEventLoopDelay` does it: a timer due every
 * millisecond records how late it ran. Ours also records the gap from its last run to the end
 * of the round: when appends never yield (inline syncs resolve their promises in one unbroken
 * chain of microtasks) the timer never runs, and the histogram would report no delay at all
 * where the loop was held for the whole round. The figure is the median over rounds of each
 * round's p99 and max. The same rounds give the rate, so `threadPoolVsInline` says what keeping
 * the loop free costs in messages a second, and `adaptiveVsInline` what the default's budget
 * (storage/io/loop-budget.ts) keeps of inline's rate.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { percentile } from '../../lab/stats.js';
import type { Experiment, LabContext } from '../../lab/experiment.js';
import { Measurement } from '../../lab/measurement.js';
import { metricFromSamples } from '../../lab/metric.js';
import type { Metric } from '../../lab/results.js';
import { interleave, measureAsync, warmUpAsync } from '../../lab/runner.js';
import {
  DEFAULT_SYNC_MODE,
  type DurabilityPolicy,
  Log,
  type LogOptions,
  MiB,
  SYNC_MODES,
  type SyncMode,
} from '../../storage/index.js';
import type { Target } from './targets.js';
import { wroteDirectly } from '../support/direct-writes.js';
import { dropSealedSegments } from '../support/settled-retention.js';
import { BENCH_EVENT_LOOP_METRICS } from '../metrics/bench-event-loop.js';

const BODY_BYTES = 1024;
const PRODUCERS = 16;
const SEGMENT_BYTES = 16 * MiB;
const WARMUP_SHARE = 0.1;
const PREFIX = 'eventLoop';

export const EVENT_LOOP_TARGETS: readonly Target[] = [
  {
    metric: `${PREFIX}.always.delayP99Ns`,
    atMost: 1e6,
    why: 'event-loop delay p99 at most 1 ms while 16 producers append under always, default options (issue 17)',
  },
  {
    metric: `${PREFIX}.group.delayP99Ns`,
    atMost: 1e6,
    why: 'event-loop delay p99 at most 1 ms while 16 producers append under group, default options',
  },
];

/** A setting's name: the policy alone for the default sync mode, a suffix for the others. */
const MODE_SUFFIX: Record<SyncMode, string> = {
  adaptive: '',
  'thread-pool': '.threadPool',
  inline: '.inline',
};

interface Setting {
  readonly policy: DurabilityPolicy;
  readonly syncMode: SyncMode;
  /** With direct writes (storage/io/direct-write.ts): each write waits for the device on the loop. */
  readonly directWrites: boolean;
  readonly name: string;
  readonly log: Log;
  readonly measurement: Measurement;
  readonly p99Ns: number[];
  readonly maxNs: number[];
}

function openSetting(
  ctx: LabContext,
  policy: DurabilityPolicy,
  syncMode: SyncMode,
  directWrites = false,
): Setting {
  const name = `${policy}${MODE_SUFFIX[syncMode]}${directWrites ? '.direct' : ''}`;
  const dir = path.join(ctx.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  // Only the policy, the sync mode and whether writes are direct change between settings.
  const options: LogOptions = {
    durability: policy,
    segmentBytes: SEGMENT_BYTES,
    ...(syncMode === DEFAULT_SYNC_MODE ? {} : { syncMode }),
    ...(directWrites ? { directWrites } : {}),
  };
  const log = Log.open(dir, options);
  return {
    policy,
    syncMode,
    directWrites,
    name,
    log,
    measurement: new Measurement(`${PREFIX}.${name}`, 'async'),
    p99Ns: [],
    maxNs: [],
  };
}

const TICK_MS = 1;

/** How late a 1 ms timer ran, each time it ran and once more at `stop` (see the top). */
class LoopLag {
  readonly #lagsNs: number[] = [];
  #lastNs = process.hrtime.bigint();
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#timer = setInterval(() => this.#record(), TICK_MS);
  }

  stop(): number[] {
    clearInterval(this.#timer);
    this.#record();
    return this.#lagsNs;
  }

  #record(): void {
    const nowNs = process.hrtime.bigint();
    this.#lagsNs.push(Math.max(0, Number(nowNs - this.#lastNs) - TICK_MS * 1e6));
    this.#lastNs = nowNs;
  }
}

async function round(setting: Setting, body: Buffer, seconds: number) {
  const lag = new LoopLag();
  const repetition = await measureAsync(
    setting.measurement,
    () => setting.log.append(body),
    { seconds },
    { concurrency: PRODUCERS },
  );
  const lagsNs = lag.stop().sort((a, b) => a - b);
  setting.p99Ns.push(percentile(lagsNs, 99));
  setting.maxNs.push(lagsNs[lagsNs.length - 1] ?? 0);
  await dropSealedSegments(setting.log);
  return repetition;
}

function settingMetrics(ctx: LabContext, setting: Setting): Metric[] {
  if (setting.directWrites && !wroteDirectly(ctx, setting.log, `${PREFIX}.${setting.name}`))
    return [];
  const labels = {
    policy: setting.policy,
    syncMode: setting.syncMode,
    producers: PRODUCERS,
    ...(setting.directWrites ? { directWrites: true } : {}),
  };
  const timing = { class: 'timing', direction: 'lower', random: ctx.random, labels } as const;
  const rates = setting.measurement.repetitions.map((rep) => rep.ratePerSec);
  return [
    metricFromSamples(`${PREFIX}.${setting.name}.delayP99Ns`, 'ns', setting.p99Ns, {
      ...timing,
      description:
        'p99 of how late a 1 ms timer ran, the end of the round ' +
        'included, one sample per round',
    }),
    metricFromSamples(`${PREFIX}.${setting.name}.delayMaxNs`, 'ns', setting.maxNs, {
      ...timing,
      description: 'the longest the event loop was held up in a round',
    }),
    metricFromSamples(`${PREFIX}.${setting.name}.msgsPerSec`, 'msgs/s', rates, {
      ...timing,
      direction: 'higher',
      description: `acknowledged appends per second, ${PRODUCERS} producers, one sample per round`,
    }),
  ];
}

function ratioMetric(
  ctx: LabContext,
  other: Setting,
  inline: Setting,
  name: 'threadPoolVsInline' | 'adaptiveVsInline',
): Metric {
  const inlineRates = inline.measurement.repetitions.map((rep) => rep.ratePerSec);
  const samples = other.measurement.repetitions.map(
    (rep, i) => rep.ratePerSec / (inlineRates[i] ?? Number.NaN),
  );
  return metricFromSamples(`${PREFIX}.${other.policy}.${name}`, 'ratio', samples, {
    class: 'timing',
    direction: 'higher',
    ratio: true,
    random: ctx.random,
    labels: { policy: other.policy, producers: PRODUCERS },
    description:
      `${other.policy} with ${other.syncMode} syncs over inline ones, messages a second, ` +
      'round by round',
  });
}

export const eventLoopBench: Experiment = {
  id: 'bench-event-loop',
  question: 'how long does the event loop wait while 16 producers append and wait for the disk?',
  params: {
    rounds: { quick: 3, full: 7 },
    roundSeconds: { quick: 0.3, full: 1 },
  },
  seed: 2027,
  metrics: BENCH_EVENT_LOOP_METRICS,
  run: async (ctx) => {
    const rounds = ctx.numberParam('rounds');
    const seconds = ctx.syncedRoundSeconds(ctx.numberParam('roundSeconds'));
    const body = Buffer.alloc(BODY_BYTES);
    ctx.random.fillBytes(body);
    const settings: Setting[] = [];
    try {
      for (const policy of ['always', 'group'] as const) {
        for (const syncMode of SYNC_MODES) settings.push(openSetting(ctx, policy, syncMode));
      }
      for (const policy of ['always', 'group'] as const)
        settings.push(openSetting(ctx, policy, DEFAULT_SYNC_MODE, true));
      for (const setting of settings) {
        await warmUpAsync(
          setting.measurement,
          () => setting.log.append(body),
          { seconds: seconds * WARMUP_SHARE },
          { concurrency: PRODUCERS },
        );
      }
      await interleave(
        rounds,
        settings.map((setting) => ({
          name: setting.name,
          round: () => round(setting, body, seconds),
        })),
        ctx.progress,
      );
      const byName = new Map(settings.map((setting) => [setting.name, setting]));
      const ratios = (['always', 'group'] as const).flatMap((policy) => {
        const inline = byName.get(`${policy}.inline`)!;
        return [
          ratioMetric(ctx, byName.get(`${policy}.threadPool`)!, inline, 'threadPoolVsInline'),
          ratioMetric(ctx, byName.get(policy)!, inline, 'adaptiveVsInline'),
        ];
      });
      return ctx.results({
        metrics: [...settings.flatMap((setting) => settingMetrics(ctx, setting)), ...ratios],
        notes: [
          `${PRODUCERS} closed-loop producers append ${BODY_BYTES}-byte bodies and await each ` +
            'acknowledgement; always and group, each with the default adaptive fdatasyncs (no ' +
            'suffix), on the thread pool (`.threadPool`) and inline (`.inline`), in interleaved ' +
            'rounds on logs of their own; `.direct`: the default mode with directWrites, whose ' +
            'writes wait for the device on the event loop (storage/io/direct-write.ts).',
          'Still on the event loop whatever the mode: a recovery point every 16 MiB and a ' +
            "roll per segment, and the first segment's 4 MiB preallocation extents (later " +
            'segments are laid out on the thread pool); delayMaxNs shows them.',
        ],
      });
    } finally {
      for (const setting of settings) await setting.log.close();
    }
  },
};
