/**
 * Runs and machines: each results document becomes a run labelled by the machine it measured
 * (device model, filesystem, kernel), and runs are grouped per experiment so that several machines
 * or several runs of one experiment share one table and one chart, a series each.
 */
import type { Environment, Results } from '../lab/results.js';
import type { LoadedResults } from './load-results.js';

export interface Run {
  readonly source: string;
  readonly results: Results;
  /** Identifies the machine and disk; equal for every experiment run there. */
  readonly machineKey: string;
  /** What a reader sees for the machine: `Samsung 990 PRO · ext4 · Linux 6.1.0`. */
  readonly machine: string;
  /** The run's series name within its experiment: the machine, plus the start time if needed. */
  readonly series: string;
}

export interface ExperimentGroup {
  readonly id: string;
  readonly question: string;
  readonly runs: readonly Run[];
}

function machineKeyOf(env: Environment): string {
  return JSON.stringify([
    env.hostname,
    env.kernel,
    env.filesystem.type,
    env.filesystem.mountPoint,
    env.filesystem.source,
    env.device.name,
    env.device.model,
  ]);
}

function baseLabel(env: Environment): string {
  const device = env.device.model ?? env.device.name ?? 'unknown device';
  return `${device} · ${env.filesystem.type ?? 'unknown filesystem'} · Linux ${env.kernel}`;
}

/** Machine labels, made distinct with the host name and then the directory where they collide. */
function machineLabels(documents: readonly LoadedResults[]): Map<string, string> {
  const envByKey = new Map<string, Environment>();
  for (const { results } of documents) {
    envByKey.set(machineKeyOf(results.environment), results.environment);
  }
  const refinements: ((env: Environment) => string)[] = [
    baseLabel,
    (env) => `${baseLabel(env)} · ${env.hostname}`,
    (env) => `${baseLabel(env)} · ${env.hostname} · ${env.filesystem.mountPoint ?? env.dir}`,
  ];
  const labels = new Map<string, string>();
  for (const [key, env] of envByKey) {
    for (const refine of refinements) {
      const label = refine(env);
      const clashes = [...envByKey.values()].filter((other) => refine(other) === label).length;
      labels.set(key, label);
      if (clashes === 1) break;
    }
  }
  return labels;
}

export function labelRuns(documents: readonly LoadedResults[]): readonly Run[] {
  const labels = machineLabels(documents);
  return documents.map(({ source, results }) => {
    const machineKey = machineKeyOf(results.environment);
    const machine = labels.get(machineKey) ?? baseLabel(results.environment);
    const sameMachineRuns = documents.filter(
      (other) =>
        other.results.experiment.id === results.experiment.id &&
        machineKeyOf(other.results.environment) === machineKey,
    ).length;
    const series = sameMachineRuns > 1 ? `${machine} · run ${results.startedAt}` : machine;
    return { source, results, machineKey, machine, series };
  });
}

/**
 * Groups in `knownOrder` first (the registry's order, handed in by the caller), then unknown ids
 * as they appear.
 */
export function groupByExperiment(
  runs: readonly Run[],
  knownOrder: readonly string[],
): readonly ExperimentGroup[] {
  const ids = [...new Set(runs.map((run) => run.results.experiment.id))];
  const rank = (id: string): number => {
    const known = knownOrder.indexOf(id);
    return known === -1 ? knownOrder.length + ids.indexOf(id) : known;
  };
  return ids
    .sort((a, b) => rank(a) - rank(b))
    .map((id) => {
      const members = runs.filter((run) => run.results.experiment.id === id);
      const question = members[0]?.results.experiment.question ?? '';
      return { id, question, runs: members };
    });
}
