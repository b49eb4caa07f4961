/**
 * Does the disk under the measured directory spin? Judged from physics, so that load cannot flip
 * the answer.
 *
 * A synced random write on a spinning disk waits, on average, half a turn for its sector to come
 * round: 4.17 ms at 7,200 rpm, 2 ms at 15,000 rpm (the fastest drives sold). Load only makes a
 * write slower, never faster, so a median under FASTEST_HALF_TURN_MS, in the whole run or in any
 * one round, proves nothing spins under the writes; a slower one proves nothing at all (a busy
 * SSD, a throttled virtual disk are slow too). The rules, in order:
 *
 * 1. `queue/rotational = 0`: not spinning ("virtual or solid-state"), whatever the latency.
 * 2. The run's median, or any round's, under 2 ms: not spinning. When the disk reports
 *    rotational = 1 this is a virtual or cached disk claiming to spin.
 * 3. `queue/rotational = 1`: spinning; the latency agrees.
 * 4. Unknown rotational: "looks like a spinning disk" only when the distribution is consistent
 *    with one — every round's median at least 2 ms and the slowest round within
 *    CONSISTENT_ROUND_SPREAD of the fastest (a spinning disk's seek and turn are steady; load
 *    comes and goes) — else it cannot tell.
 */
import { assert } from '../../storage/errors.js';
import { formatFigure } from '../format.js';

/** Half a turn at 15,000 rpm: no spinning disk completes a synced random write faster. */
export const FASTEST_HALF_TURN_MS = 60_000 / 15_000 / 2;
/** Half a turn at 7,200 rpm, the common case, quoted beside the verdict. */
export const HALF_TURN_7200_MS = 60_000 / 7_200 / 2;
/** Slowest round over fastest round beyond which rounds disagree too much to call it spinning. */
export const CONSISTENT_ROUND_SPREAD = 2;

export interface SpinningEvidence {
  /** /sys/block/<disk>/queue/rotational; null when it could not be read. */
  readonly rotational: boolean | null;
  /** Median synced random write (or synced send) latency over the whole run, ms. */
  readonly medianMs: number;
  /** The same median, round by round, ms; may be empty. */
  readonly roundMediansMs: readonly number[];
}

export interface SpinningVerdict {
  /** True: spinning; false: not; null: cannot tell. */
  readonly spins: boolean | null;
  /** Which rule decided: the kernel's flag, the physics floor, or the latency's shape. */
  readonly basis: 'rotational' | 'physics' | 'latency';
  /** One sentence for the results' notes. */
  readonly sentence: string;
}

export function spinningVerdict(evidence: SpinningEvidence): SpinningVerdict {
  assert(evidence.medianMs >= 0, `medianMs must be >= 0: ${evidence.medianMs}`);
  const fastestMs = Math.min(evidence.medianMs, ...evidence.roundMediansMs);
  const took = `synced random writes took a median ${formatFigure(evidence.medianMs)} ms`;
  const floor =
    `half a turn takes ${formatFigure(HALF_TURN_7200_MS)} ms at 7,200 rpm and ` +
    `${formatFigure(FASTEST_HALF_TURN_MS)} ms at 15,000 rpm`;
  if (evidence.rotational === false) {
    return {
      spins: false,
      basis: 'rotational',
      sentence:
        'Not a spinning disk: it reports ' +
        `queue/rotational = 0 (virtual or solid-state); its ${took}.`,
    };
  }
  if (fastestMs < FASTEST_HALF_TURN_MS) {
    const claim =
      evidence.rotational === true
        ? 'it reports queue/rotational = 1, but a virtual or cached disk often does'
        : 'virtual or solid-state';
    return {
      spins: false,
      basis: 'physics',
      sentence:
        `Not a spinning disk (${claim}): its ` +
        `${took}${
          fastestMs < evidence.medianMs
            ? ` (${formatFigure(fastestMs)} ms in its fastest round)`
            : ''
        }, and no spinning disk is that fast: ${floor}.`,
    };
  }
  if (evidence.rotational === true) {
    return {
      spins: true,
      basis: 'rotational',
      sentence:
        'A spinning disk: it reports ' +
        `queue/rotational = 1 and its ${took}, as a spinning disk's do (${floor}).`,
    };
  }
  const slowestMs = Math.max(evidence.medianMs, ...evidence.roundMediansMs);
  if (evidence.roundMediansMs.length > 0 && slowestMs <= fastestMs * CONSISTENT_ROUND_SPREAD) {
    return {
      spins: true,
      basis: 'latency',
      sentence:
        'Looks like a spinning disk (it does not ' +
        `say): its ${took}, every round at least ${formatFigure(FASTEST_HALF_TURN_MS)} ms and ` +
        `within ${CONSISTENT_ROUND_SPREAD}× of each other, as a spinning disk's are (${floor}).`,
    };
  }
  return {
    spins: null,
    basis: 'latency',
    sentence:
      'Cannot tell whether the disk spins: it ' +
      `does not say, and its ${took} with rounds from ${formatFigure(fastestMs)} to ` +
      `${formatFigure(slowestMs)} ms — as slow as a spinning disk but as uneven as a busy one.`,
  };
}
