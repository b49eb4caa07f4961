/**
 * Samples how many write requests the disks under a directory have in flight
 * (/sys/block/<disk>/inflight: reads, then writes), to report the queue depth a run actually
 * reached at the device rather than the one it asked for: libuv's thread pool, a filesystem lock
 * or the page cache can each keep the device's queue shorter than the program's.
 *
 * Samples are taken on a 1 ms timer, so they see what the event loop lets them see; the disk is
 * shared, so another program's writes count too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assert } from '../../storage/errors.js';
import { median } from '../stats.js';

export interface InflightSummary {
  readonly samples: number;
  /** The average number in flight over the sampled time. */
  readonly mean: number;
  readonly median: number;
  readonly max: number;
}

const SAMPLE_INTERVAL_MS = 1;

/** Write requests in flight on one disk, or null when the file cannot be read. */
export function readInflightWrites(disk: string, sysRoot = '/sys'): number | null {
  try {
    const text = fs.readFileSync(path.join(sysRoot, 'block', disk, 'inflight'), 'utf8');
    const writes = Number(text.trim().split(/\s+/)[1]);
    return Number.isFinite(writes) ? writes : null;
  } catch {
    return null;
  }
}

export class InflightSampler {
  readonly #disks: readonly string[];
  readonly #sysRoot: string;
  #samples: number[] = [];
  #timer: NodeJS.Timeout | null = null;

  constructor(disks: readonly string[], sysRoot = '/sys') {
    assert(disks.length > 0, 'sampling in-flight writes needs a disk');
    this.#disks = disks;
    this.#sysRoot = sysRoot;
  }

  /** Takes one sample now; false when a disk's counter cannot be read. */
  sample(): boolean {
    let total = 0;
    for (const disk of this.#disks) {
      const writes = readInflightWrites(disk, this.#sysRoot);
      if (writes === null) return false;
      total += writes;
    }
    this.#samples.push(total);
    return true;
  }

  start(): void {
    assert(this.#timer === null, 'the sampler is already running');
    this.#samples = [];
    this.#timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  /** Stops sampling; null when no sample could be taken. */
  stop(): InflightSummary | null {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    const samples = this.#samples;
    if (samples.length === 0) return null;
    const max = samples.reduce((largest, value) => Math.max(largest, value), 0);
    const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    return { samples: samples.length, mean, median: median(samples), max };
  }
}
