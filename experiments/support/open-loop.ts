/**
 * The open-loop phase of the durability and puzzle experiments: after the closed-loop rounds,
 * sends start on a fixed schedule at shares of the rate those rounds just measured, and each
 * latency counts from the send's intended start (lab/runner.ts measureOpenLoopAsync). A closed
 * loop waits for a slow send before starting the next, so a stall delays the sends behind it
 * without any of them being timed as late (coordinated omission); here they queue, and their
 * wait is in the figures.
 *
 * Figures per series and offered rate, names `<series prefix>.offered<pct>.<quantity>`:
 * `openLoopLatencyNs` (from the intended start), `openLoopServiceNs` (from the actual start),
 * `openLoopMsgsPerSec` (achieved) and `openLoopLateSends`.
 */
import { assert } from '../../storage/testing/index.js';
import {
  type AsyncOperation,
  type Labels,
  Measurement,
  type Metric,
  type Repetition,
  type SeededRandom,
  measureOpenLoopAsync,
} from '../../lab/index.js';
import type { OpenLoopSpecs } from '../metrics/open-loop.js';

/** The shares of the closed-loop rate offered, in percent, lowest first. */
export const OFFERED_PCTS: readonly number[] = [25, 50, 75, 90];

export interface OfferedRate {
  /** The share of the closed-loop rate, in percent. */
  readonly offeredPct: number;
  /** Sends started per second: the share, rounded to whole sends, at least one. */
  readonly offeredPerSec: number;
}

/** The rates offered: `pcts` percent of `closedLoopPerSec`. */
export function offeredRates(
  closedLoopPerSec: number,
  pcts: readonly number[] = OFFERED_PCTS,
): OfferedRate[] {
  assert(Number.isFinite(closedLoopPerSec), `closed-loop rate must be finite: ${closedLoopPerSec}`);
  assert(closedLoopPerSec > 0, `closed-loop rate must be positive: ${closedLoopPerSec}`);
  return pcts.map((offeredPct) => {
    assert(offeredPct > 0, `an offered share must be positive: ${offeredPct}`);
    assert(offeredPct <= 100, `an offered share is at most 100%: ${offeredPct}`);
    const offeredPerSec = Math.max(1, Math.round((closedLoopPerSec * offeredPct) / 100));
    return { offeredPct, offeredPerSec };
  });
}

/**
 * Whether a send that started `lagNs` after its intended start started late: a whole interval
 * between two sends or more behind, so the schedule had slipped by at least one send. Smaller
 * lags are the scheduler's own jitter (an event-loop turn, a timer).
 */
export function startedLate(lagNs: number, intervalNs: number): boolean {
  assert(intervalNs > 0, `the interval between sends must be positive: ${intervalNs}`);
  return lagNs >= intervalNs;
}

/**
 * Counts the late starts of one open-loop repetition. The runner keeps each send's intended
 * start to itself, so the schedule is rebuilt here: the first send starts on time (nothing is
 * ahead of it) and its start is the schedule's origin; send i was due i intervals later. The
 * origin is a few microseconds after the runner's, so lags are that much short.
 */
export class LateStarts {
  readonly #intervalNs: number;
  readonly #firstIndex: number;
  #originNs: bigint | null = null;
  #late = 0;
  #starts = 0;

  constructor(ratePerSec: number, firstIndex: number) {
    assert(Number.isFinite(ratePerSec), `ratePerSec must be finite: ${ratePerSec}`);
    assert(ratePerSec > 0, `ratePerSec must be positive: ${ratePerSec}`);
    this.#intervalNs = 1e9 / ratePerSec;
    this.#firstIndex = firstIndex;
  }

  /** Records that the send with operation index `index` started at `nowNs`. */
  started(index: number, nowNs: bigint): void {
    const position = index - this.#firstIndex;
    assert(position >= 0, `send ${index} is before the repetition's first, ${this.#firstIndex}`);
    if (this.#originNs === null) {
      assert(position === 0, `the first send to start must be the first scheduled: ${index}`);
      this.#originNs = nowNs;
    }
    const lagNs = Number(nowNs - this.#originNs) - position * this.#intervalNs;
    if (startedLate(lagNs, this.#intervalNs)) this.#late++;
    this.#starts++;
  }

  get late(): number {
    return this.#late;
  }

  get starts(): number {
    return this.#starts;
  }
}

export interface OpenLoopRoundOptions {
  readonly ratePerSec: number;
  readonly seconds: number;
  /** Sends in flight at once; a send due while they are all busy starts late. */
  readonly maxInFlight: number;
}

export interface OpenLoopRound {
  readonly repetition: Repetition;
  /** Sends that started a whole interval or more after their intended start. */
  readonly lateSends: number;
}

/** One open-loop repetition of `send` into `measurement`, counting the sends that started late. */
export async function openLoopRound(
  measurement: Measurement,
  send: AsyncOperation,
  options: OpenLoopRoundOptions,
): Promise<OpenLoopRound> {
  const late = new LateStarts(options.ratePerSec, measurement.nextIndex);
  const timed: AsyncOperation = (index) => {
    late.started(index, process.hrtime.bigint());
    return send(index);
  };
  const repetition = await measureOpenLoopAsync(measurement, timed, {
    ratePerSec: options.ratePerSec,
    budget: { seconds: options.seconds },
    maxInFlight: options.maxInFlight,
  });
  return { repetition, lateSends: late.late };
}

/** One series at one offered rate, its repetitions accumulated over the interleaved rounds. */
export class OpenLoopSeries {
  /** `<series prefix>.offered<pct>`, the start of every metric name. */
  readonly prefix: string;
  readonly offered: OfferedRate;
  readonly labels: Labels;
  readonly measurement: Measurement;
  #lateSends = 0;

  readonly #specs: OpenLoopSpecs;

  /** `specs`: the experiment's declarations of the open-loop quantities (metrics/open-loop.ts). */
  constructor(
    specs: OpenLoopSpecs,
    seriesPrefix: string,
    seriesLabels: Labels,
    offered: OfferedRate,
  ) {
    this.#specs = specs;
    this.prefix = `${seriesPrefix}.offered${offered.offeredPct}`;
    this.offered = offered;
    this.labels = {
      ...seriesLabels,
      offeredPct: offered.offeredPct,
      offeredPerSec: offered.offeredPerSec,
    };
    this.measurement = new Measurement(this.prefix, 'open-loop-async', this.labels);
  }

  async round(send: AsyncOperation, seconds: number, maxInFlight: number): Promise<OpenLoopRound> {
    const ratePerSec = this.offered.offeredPerSec;
    const round = await openLoopRound(this.measurement, send, { ratePerSec, seconds, maxInFlight });
    this.#lateSends += round.lateSends;
    return round;
  }

  get lateSends(): number {
    return this.#lateSends;
  }

  /** The figures of this series at this rate; `what` says what a send is and its base rate. */
  metrics(random: SeededRandom, what: string): Metric[] {
    const summary = this.measurement.summarize(random);
    const labels = { ...this.labels, mode: summary.mode };
    const { offeredPct, offeredPerSec } = this.offered;
    const offered = `${offeredPerSec} sends/s offered (${offeredPct}% of ${what})`;
    const rounds = this.measurement.repetitions.length;
    const M = this.#specs;
    const metrics: Metric[] = [
      {
        ...M.openLoopLatencyNs.adopt(`${this.prefix}.openLoopLatencyNs`, summary.latencyNs, labels),
        description:
          `${offered}: send until acknowledged, from its intended start; ` +
          (summary.latencyNs.description ?? ''),
      },
      {
        ...M.openLoopMsgsPerSec.adopt(
          `${this.prefix}.openLoopMsgsPerSec`,
          summary.ratePerSec,
          labels,
        ),
        description:
          `${offered}: acknowledged sends per second achieved, one sample ` +
          'per round (scheduled sends over the time until the last was acknowledged)',
      },
      M.openLoopLateSends.measured(
        `${this.prefix}.openLoopLateSends`,
        this.#lateSends,
        labels,
        `${offered}: sends that started a whole interval or more after their intended start, ` +
          `of ${summary.ops} scheduled in ${rounds} round${rounds === 1 ? '' : 's'}`,
      ),
    ];
    if (summary.serviceNs !== undefined) {
      metrics.push({
        ...M.openLoopServiceNs.adopt(`${this.prefix}.openLoopServiceNs`, summary.serviceNs, labels),
        description:
          `${offered}: send until acknowledged, from its actual start (what a ` +
          `closed loop would report); ${summary.serviceNs.description ?? ''}`,
      });
    }
    return metrics;
  }
}
