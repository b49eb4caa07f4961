/**
 * fio as a cross-check: the same job run by the tool storage engineers trust, so a figure the lab
 * measured through Node can be set beside it (`ours / fio's`). Job files live in scripts/fio/ and
 * take their settings from the environment (`${DEPTH}`, `${FILE}`, …), which fio expands, and
 * set lat_percentiles so fio's latency covers the whole of each I/O, submission included. fio
 * prints `json+`, whose `lat_ns.bins` hold the count of I/Os per latency bucket (fio's histogram,
 * 64 buckets per power of two, so a bucket is within about 1.6% of the values it holds): a caller
 * can add the runs of several rounds and read percentiles over all their I/Os, as the runner
 * does with its own histograms. fio is optional: when it is missing or fails, the caller is told
 * why and carries on.
 */
import { spawnSync } from 'node:child_process';

export interface FioWrite {
  readonly iops: number;
  readonly bytesPerSec: number;
  readonly ios: number;
  readonly runtimeMs: number;
  /** [latency in ns (the bucket's value), I/Os in that bucket], ascending; counts sum to `ios`. */
  readonly latencyNsBins: readonly (readonly [number, number])[];
}

export type FioOutcome =
  | { readonly ok: true; readonly write: FioWrite }
  | { readonly ok: false; readonly reason: string };

/** fio's version line, or null when it is not installed. */
export function fioVersion(): string | null {
  const run = spawnSync('fio', ['--version'], { encoding: 'utf8' });
  if (run.error !== undefined || run.status !== 0) return null;
  return run.stdout.trim();
}

function numberAt(value: unknown, ...keys: string[]): number | null {
  let at: unknown = value;
  for (const key of keys) {
    if (typeof at !== 'object' || at === null) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'number' && Number.isFinite(at) ? at : null;
}

/** fio's `lat_ns.bins` (`{ "<ns>": count }`) as ascending pairs, or null when absent or bad. */
function latencyBins(job: unknown): [number, number][] | null {
  type Binned = { write?: { lat_ns?: { bins?: unknown } } } | undefined;
  const bins = (job as Binned)?.write?.lat_ns?.bins;
  if (typeof bins !== 'object' || bins === null) return null;
  const pairs = Object.entries(bins).map(([ns, count]): [number, unknown] => [Number(ns), count]);
  const valid = pairs.every(
    ([ns, count]) =>
      Number.isSafeInteger(ns) &&
      ns >= 0 &&
      typeof count === 'number' &&
      Number.isSafeInteger(count) &&
      count > 0,
  );
  if (!valid) return null;
  return (pairs as [number, number][]).sort((a, b) => a[0] - b[0]);
}

/** The write figures of the first job in fio's `json+` output, or why they are not there. */
export function parseFioWrite(json: string): FioOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return { ok: false, reason: `fio printed no JSON (${(error as Error).message})` };
  }
  const job = (parsed as { jobs?: unknown[] }).jobs?.[0];
  const write = {
    iops: numberAt(job, 'write', 'iops'),
    bytesPerSec: numberAt(job, 'write', 'bw_bytes'),
    ios: numberAt(job, 'write', 'total_ios'),
    // The write direction's own runtime, from which fio computes its iops.
    runtimeMs: numberAt(job, 'write', 'runtime'),
    // Total latency (submission and completion), which lat_percentiles=1 makes fio bin.
    latencyNsBins: latencyBins(job),
  };
  const missing = Object.entries(write)
    .filter(([, value]) => value === null)
    .map(([key]) => key);
  if (missing.length > 0) return { ok: false, reason: `fio's JSON lacks ${missing.join(', ')}` };
  const parsedWrite = write as FioWrite;
  const binned = parsedWrite.latencyNsBins.reduce((sum, [, count]) => sum + count, 0);
  if (binned !== parsedWrite.ios) {
    return { ok: false, reason: `fio binned ${binned} latencies for ${parsedWrite.ios} writes` };
  }
  if (parsedWrite.ios === 0 || parsedWrite.runtimeMs <= 0) {
    const { ios, runtimeMs } = parsedWrite;
    return { ok: false, reason: `fio wrote ${ios} blocks in ${runtimeMs} ms` };
  }
  return { ok: true, write: parsedWrite };
}

/** Runs `jobFile` with `env` added to this process's environment. */
export function runFioJob(
  jobFile: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): FioOutcome {
  const run = spawnSync('fio', ['--output-format=json+', jobFile], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: timeoutMs,
  });
  if (run.error !== undefined) {
    return { ok: false, reason: `fio could not run (${run.error.message})` };
  }
  if (run.status !== 0) {
    const firstLine = run.stderr.trim().split('\n')[0] ?? '';
    return { ok: false, reason: `fio exited with ${run.status}: ${firstLine}` };
  }
  return parseFioWrite(run.stdout);
}
