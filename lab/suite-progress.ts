/**
 * Where a run of several experiments stands: experiment n of N and about how long is left. On a
 * terminal it is the stage of the progress line (progress.ts); elsewhere (a pipe, a CI log) one
 * line per experiment start and end, so a suite piped to a file is never silent for minutes. A
 * single experiment prints no such lines: its own output follows at once, and an error stays the
 * one line on stderr.
 */
import { type ProgressReporter, type ProgressStream, formatElapsed } from './progress.js';

export class SuiteProgress {
  readonly #stream: ProgressStream;
  readonly #progress: ProgressReporter;
  readonly #total: number;
  readonly #terminal: boolean;
  /** Whether to print a line per experiment: a suite, not on a terminal. */
  readonly #lines: boolean;
  readonly #clock: () => bigint;
  readonly #startNs: bigint;
  #experimentStartNs: bigint;
  #finished = 0;

  constructor(
    stream: ProgressStream,
    progress: ProgressReporter,
    total: number,
    clock: () => bigint = () => process.hrtime.bigint(),
  ) {
    this.#stream = stream;
    this.#progress = progress;
    this.#total = total;
    this.#terminal = stream.isTTY === true;
    this.#lines = !this.#terminal && total > 1;
    this.#clock = clock;
    this.#startNs = clock();
    this.#experimentStartNs = this.#startNs;
  }

  start(id: string): void {
    this.#experimentStartNs = this.#clock();
    const position = `experiment ${this.#finished + 1} of ${this.#total}`;
    const left = this.#timeLeft(this.#total - this.#finished);
    this.#progress.stage(`${position}${left === null ? '' : `, ${left}`}`);
    if (this.#lines) this.#stream.write(`loglab: ${position}: ${id} started\n`);
  }

  end(id: string): void {
    const nowNs = this.#clock();
    this.#finished++;
    if (!this.#lines) return;
    const took = formatElapsed(nowNs - this.#experimentStartNs);
    const left = this.#timeLeft(this.#total - this.#finished);
    const tail = this.#finished === this.#total ? '' : left === null ? '' : `; ${left}`;
    this.#stream.write(
      `loglab: experiment ${this.#finished} of ${this.#total}: ${id} done in ` +
        `${took} (${formatElapsed(nowNs - this.#startNs)} so far${tail})\n`,
    );
  }

  /** The remaining experiments at the mean pace of the finished ones; null before the first. */
  #timeLeft(remaining: number): string | null {
    if (this.#finished === 0) return null;
    const meanNs = (this.#clock() - this.#startNs) / BigInt(this.#finished);
    return `about ${formatElapsed(meanNs * BigInt(remaining))} left`;
  }
}
