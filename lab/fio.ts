/**
 * fio as a cross-check: the same job run by the tool storage engineers trust, so a figure the lab
 * measured through Node can be set beside it (`ours / fio's`). Job files live in scripts/fio/ and
 * take their settings from the environment (`${DEPTH}`, `${FILE}`, …), which fio expands, and
 * set lat_percentiles so fio reports percentiles of the whole latency, submission included.
 * fio is optional: when it is missing or fails, the caller is told why and carries on.
 */
import { spawnSync } from 'node:child_process';

export interface FioWrite {
  readonly iops: number;
  readonly bytesPerSec: number;
  readonly latencyNsP50: number;
  readonly latencyNsP99: number;
  readonly ios: number;
  readonly runtimeMs: number;
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

/** The write figures of the first job in fio's JSON output, or why they are not there. */
export function parseFioWrite(json: string): FioOutcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return { ok: false, reason: `fio printed no JSON (${(error as Error).message})` };
  }
  const job = (parsed as { jobs?: unknown[] }).jobs?.[0];
  // Total latency (submission and completion), which the job files ask fio to break down.
  const percentile = (p: string) => numberAt(job, 'write', 'lat_ns', 'percentile', p);
  const write = {
    iops: numberAt(job, 'write', 'iops'),
    bytesPerSec: numberAt(job, 'write', 'bw_bytes'),
    latencyNsP50: percentile('50.000000'),
    latencyNsP99: percentile('99.000000'),
    ios: numberAt(job, 'write', 'total_ios'),
    runtimeMs: numberAt(job, 'job_runtime'),
  };
  const missing = Object.entries(write).filter(([, value]) => value === null).map(([key]) => key);
  if (missing.length > 0) return { ok: false, reason: `fio's JSON lacks ${missing.join(', ')}` };
  return { ok: true, write: write as FioWrite };
}

/** Runs `jobFile` with `env` added to this process's environment. */
export function runFioJob(
  jobFile: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
): FioOutcome {
  const run = spawnSync('fio', ['--output-format=json', jobFile], {
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
