/** Exact size distributions for segment statistics (segment-stats.ts). */

export interface SizeSummary {
  readonly count: number;
  readonly min: number;
  readonly median: number;
  readonly p90: number;
  readonly max: number;
  readonly mean: number;
}

/** Exact counts of integer sizes: quantiles by nearest rank. */
export class SizeHistogram {
  readonly #counts = new Map<number, number>();
  #count = 0;
  #total = 0;

  add(value: number, times = 1): void {
    this.#counts.set(value, (this.#counts.get(value) ?? 0) + times);
    this.#count += times;
    this.#total += value * times;
  }

  get count(): number {
    return this.#count;
  }

  /** The value at rank ceil(q × count), q in (0, 1]; NaN when empty. */
  quantile(q: number): number {
    if (this.#count === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = 0;
    for (const value of [...this.#counts.keys()].sort((a, b) => a - b)) {
      seen += this.#counts.get(value)!;
      if (seen >= rank) return value;
    }
    return Number.NaN;
  }

  summary(): SizeSummary {
    return {
      count: this.#count,
      min: this.quantile(Number.MIN_VALUE),
      median: this.quantile(0.5),
      p90: this.quantile(0.9),
      max: this.quantile(1),
      mean: this.#count === 0 ? Number.NaN : this.#total / this.#count,
    };
  }
}
