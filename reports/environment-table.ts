/**
 * The environment at the end of a report: one column per machine with what it was (CPU, memory,
 * kernel, filesystem, device and its queue settings), and one row per run with how it was run.
 */
import type { Environment } from '../lab/results.js';
import type { Table } from './figure-table.js';
import type { ExperimentGroup, Run } from './runs.js';
import { formatInDisplayUnit } from './units.js';

type Field = readonly [string, (env: Environment) => string];

function known(value: string | number | boolean | null): string {
  if (value === null) return 'unknown';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function bytes(value: number | null): string {
  return value === null ? 'unknown' : formatInDisplayUnit(value, 'B');
}

const FIELDS: readonly Field[] = [
  ['host', (env) => env.hostname],
  ['operating system', (env) => `${env.os} ${env.arch}`],
  ['kernel', (env) => env.kernel],
  ['CPU', (env) => `${env.cpuModel} × ${env.cpuCores}`],
  ['memory', (env) => bytes(env.memoryBytes)],
  ['Node.js', (env) => env.nodeVersion],
  ['directory', (env) => env.dir],
  ['filesystem', (env) => known(env.filesystem.type)],
  ['mounted at', (env) => known(env.filesystem.mountPoint)],
  ['mount options', (env) => known(env.filesystem.mountOptions)],
  ['source', (env) => known(env.filesystem.source)],
  ['device', (env) => known(env.device.name)],
  ['device model', (env) => known(env.device.model)],
  ['rotational', (env) => known(env.device.rotational)],
  ['write cache', (env) => known(env.device.writeCache)],
  ['FUA', (env) => known(env.device.fua)],
  ['I/O scheduler', (env) => known(env.device.scheduler)],
  ['queue requests', (env) => known(env.device.nrRequests)],
  ['logical block', (env) => bytes(env.device.logicalBlockBytes)],
  ['physical block', (env) => bytes(env.device.physicalBlockBytes)],
  ['free space', (env) => bytes(env.freeBytes)],
  ['can drop caches', (env) => known(env.canDropCaches)],
  ['free page reporting', (env) => known(env.freePageReporting ?? null)],
];

/** One column per machine, first seen first. */
export function machinesTable(runs: readonly Run[]): Table {
  const machines = new Map<string, Run>();
  for (const run of runs) if (!machines.has(run.machineKey)) machines.set(run.machineKey, run);
  const columns = [...machines.values()];
  return {
    header: ['', ...columns.map((run) => run.machine)],
    rows: FIELDS.map(([title, read]) => [
      title,
      ...columns.map((run) => read(run.results.environment)),
    ]),
  };
}

/** The clock, and the floor it puts under every per-operation latency when that was measured. */
function timerText(run: Run): string {
  const overheadNs = run.results.timerOverheadNs;
  if (overheadNs === undefined) return run.results.timer;
  return `${run.results.timer} (${formatInDisplayUnit(overheadNs, 'ns')} per empty op)`;
}

function durationText(run: Run): string {
  const elapsedMs = Date.parse(run.results.endedAt) - Date.parse(run.results.startedAt);
  return formatInDisplayUnit(elapsedMs, 'ms');
}

export function runsTable(groups: readonly ExperimentGroup[]): Table {
  const rows = groups.flatMap((group) =>
    group.runs.map((run) => [
      group.id,
      run.machine,
      run.source,
      run.results.quick ? 'quick' : 'full',
      String(run.results.seed),
      run.results.startedAt,
      durationText(run),
      timerText(run),
    ]),
  );
  return {
    header: ['experiment', 'machine', 'results file', 'size', 'seed', 'started', 'took', 'timer'],
    rows,
  };
}
