/**
 * The progress line: elapsed time, phase and ops/s, redrawn in place on a terminal.
 *
 * It stays hidden for the first seconds so short commands print nothing extra, is throttled so the
 * runner can call `update` from its loop, and is silent when output is not a terminal or is JSON.
 */

export interface ProgressReporter {
  /**
   * Names the step of a longer run that holds the phases (`experiment 3 of 10, about 1m20s
   * left`), shown before each phase until the next stage.
   */
  stage(name: string): void;
  /** Names what is running now, e.g. `puzzle: A always, round 2/5`. Resets the ops count. */
  phase(name: string): void;
  /** Operations completed in the current phase so far. Cheap; call as often as convenient. */
  update(opsDone: number): void;
  /** Clears the line. */
  done(): void;
}

/** Anything shorter than this finishes before a progress line would help. */
export const PROGRESS_DELAY_NS = 2_000_000_000n;
/** Redraws per second at most; more only costs the measured work CPU time. */
const REDRAW_INTERVAL_NS = 250_000_000n;

export const silentProgress: ProgressReporter = {
  stage: () => undefined,
  phase: () => undefined,
  update: () => undefined,
  done: () => undefined,
};

export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): boolean;
}

export function formatElapsed(elapsedNs: bigint): string {
  const seconds = Number(elapsedNs / 1_000_000n) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.floor(seconds - minutes * 60)).padStart(2, '0')}s`;
}

class TerminalProgress implements ProgressReporter {
  readonly #stream: ProgressStream;
  readonly #startNs = process.hrtime.bigint();
  #stageName = '';
  #phaseName = '';
  #phaseStartNs = this.#startNs;
  #nextDrawNs: bigint;
  #drawn = false;

  constructor(stream: ProgressStream, delayNs: bigint) {
    this.#stream = stream;
    this.#nextDrawNs = this.#startNs + delayNs;
  }

  stage(name: string): void {
    this.#stageName = name;
  }

  phase(name: string): void {
    this.#phaseName = name;
    this.#phaseStartNs = process.hrtime.bigint();
    // A new phase shows at once once the line is up; only updates within a phase are throttled.
    if (this.#drawn) this.#nextDrawNs = this.#phaseStartNs;
    this.update(0);
  }

  update(opsDone: number): void {
    const nowNs = process.hrtime.bigint();
    if (nowNs < this.#nextDrawNs) return;
    this.#nextDrawNs = nowNs + REDRAW_INTERVAL_NS;
    const phaseSeconds = Number(nowNs - this.#phaseStartNs) / 1e9;
    const rate =
      phaseSeconds > 0 && opsDone > 0
        ? `  ${Math.round(opsDone / phaseSeconds).toLocaleString('en-US')} ops/s`
        : '';
    const stage = this.#stageName === '' ? '' : `[${this.#stageName}]  `;
    const line = `${formatElapsed(nowNs - this.#startNs)}  ${stage}${this.#phaseName}${rate}`;
    const width = Math.max(20, (this.#stream.columns ?? 80) - 1);
    this.#stream.write(`\r\x1b[2K${line.slice(0, width)}`);
    this.#drawn = true;
  }

  done(): void {
    if (this.#drawn) this.#stream.write('\r\x1b[2K');
    this.#drawn = false;
  }
}

/** A progress line on `stream` when it is a terminal and output is not JSON; otherwise silence. */
export function progressFor(
  stream: ProgressStream,
  options: { json: boolean; delayNs?: bigint },
): ProgressReporter {
  if (options.json || stream.isTTY !== true) return silentProgress;
  return new TerminalProgress(stream, options.delayNs ?? PROGRESS_DELAY_NS);
}
