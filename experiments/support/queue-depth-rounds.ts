/**
 * How the queue-depth child pairs fio's runs with ours. In every round, each method that has a
 * fio job runs ours and fio's back to back, on the same file, for the same length: ours first in
 * even rounds, fio's first in odd ones, so neither side always follows the other and a drift of
 * the disk across the rounds (its cache filling, another program starting) falls on both alike.
 * Each round then holds one figure of ours and one of fio's, measured moments apart, whose ratio
 * is a within-run figure. fio's runs go into a Measurement as ours do, so both sides are
 * summarised the same way (rate per round, latency over every I/O of every round).
 */
import {
  type FioOutcome,
  Measurement,
  type SeededRandom,
  interleave,
  runFioJob,
} from '../../lab/index.js';
import { assert } from '../../storage/testing/index.js';
import type { ChildConfig, FioMethod, FioReport } from './queue-depth-protocol.js';

export interface PairedDesign {
  readonly name: string;
  ours(round: number): Promise<void>;
  /** The run paired with ours in every round, or null when there is none. */
  readonly reference: ((round: number) => Promise<void>) | null;
}

/**
 * Round r runs every design in turn; a paired design runs ours then the reference when r is
 * even, the reference then ours when r is odd.
 */
export async function pairedRounds(
  rounds: number,
  designs: readonly PairedDesign[],
): Promise<void> {
  await interleave(
    rounds,
    designs.map((design) => ({
      name: design.name,
      round: async (round: number): Promise<void> => {
        const { reference } = design;
        if (reference === null) return design.ours(round);
        if (round % 2 === 0) {
          await design.ours(round);
          await reference(round);
        } else {
          await reference(round);
          await design.ours(round);
        }
      },
    })),
  );
}

export type FioRunner = (
  jobFile: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
) => FioOutcome;

/** The settings scripts/fio/<method>.fio reads, for the file, depth and round ours uses. */
export function fioJobEnv(
  method: FioMethod,
  config: ChildConfig,
  ioMode: string,
): Record<string, string> {
  assert(config.seconds > 0, `queue-depth: a round must last some time: ${config.seconds}`);
  const direct = ioMode === 'O_DIRECT';
  return {
    FILE: method === 'append' ? config.appendFile : config.randomFile,
    SIZE: String(config.randomFileBytes),
    DEPTH: String(config.depth),
    // fio's runtime counts from its first I/O, as our round does: start-up is outside both.
    RUNTIME: `${Math.max(1, Math.round(config.seconds * 1000))}ms`,
    DIRECT: direct ? '1' : '0',
    // Ours falls back from O_DIRECT to O_DSYNC; fio's sync=dsync opens with O_DSYNC too.
    SYNC: direct ? '0' : 'dsync',
  };
}

/** fio's runs of one method, one per round, until one fails: then none, and the reason kept. */
export class FioRuns {
  readonly method: FioMethod;
  readonly ioMode: string;
  readonly measurement: Measurement;
  readonly #jobFile: string;
  readonly #env: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  readonly #runner: FioRunner;
  #failure: string | null = null;

  constructor(
    method: FioMethod,
    ioMode: string,
    jobFile: string,
    env: Readonly<Record<string, string>>,
    timeoutMs: number,
    runner: FioRunner = runFioJob,
  ) {
    this.method = method;
    this.ioMode = ioMode;
    this.measurement = new Measurement(`fio-${method}`, 'async');
    this.#jobFile = jobFile;
    this.#env = env;
    this.#timeoutMs = timeoutMs;
    this.#runner = runner;
  }

  /** Runs fio's job once; its I/Os join this method's fio histogram as one repetition. */
  async round(round: number): Promise<void> {
    if (this.#failure !== null) return;
    const outcome = this.#runner(this.#jobFile, this.#env, this.#timeoutMs);
    if (!outcome.ok) {
      this.#failure = `round ${round + 1}: ${outcome.reason}`;
      return;
    }
    const { write } = outcome;
    this.measurement.beginRepetition();
    for (const [latencyNs, count] of write.latencyNsBins) {
      this.measurement.repetitionLatencyNs.recordValueWithCount(latencyNs, count);
    }
    this.measurement.endRepetition(write.ios, write.runtimeMs * 1e6);
  }

  report(random: SeededRandom): FioReport {
    if (this.#failure !== null) return { ok: false, reason: this.#failure };
    const summary = this.measurement.summarize(random);
    return {
      ok: true,
      ioMode: this.ioMode,
      ratePerSec: summary.ratePerSec,
      latencyNs: summary.latencyNs,
    };
  }
}
