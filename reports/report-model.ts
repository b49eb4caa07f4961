/**
 * What a report says, before it is written as Markdown or HTML: headlines, one section per
 * experiment (question, charts, table, notes, parameters), the files left out, the environment.
 */
import { machinesTable, runsTable } from './environment-table.js';
import { figureTable, type Table } from './figure-table.js';
import { quantityOf } from './figures.js';
import type { ExperimentGroup, Run } from './runs.js';

export interface ReportChart {
  readonly title: string;
  /** The SVG text, for inlining into HTML. */
  readonly svg: string;
  /** Paths relative to the report folder. */
  readonly svgFile: string;
  readonly pngFile: string;
}

export interface Headline {
  readonly experimentId: string;
  /** The machine, when the report covers several; null otherwise. */
  readonly machine: string | null;
  readonly text: string;
}

export interface ReportSection {
  readonly id: string;
  readonly question: string;
  readonly charts: readonly ReportChart[];
  readonly table: Table;
  readonly notes: readonly string[];
  readonly parameters: readonly string[];
}

export interface ReportModel {
  readonly headlines: readonly Headline[];
  readonly warnings: readonly string[];
  readonly sections: readonly ReportSection[];
  readonly machines: Table;
  readonly runs: Table;
}

function severalMachines(runs: readonly Run[]): boolean {
  return new Set(runs.map((run) => run.machineKey)).size > 1;
}

function headlines(groups: readonly ExperimentGroup[], runs: readonly Run[]): Headline[] {
  const tagged = severalMachines(runs);
  return groups.flatMap((group) => group.runs.flatMap((run) => {
    const text = run.results.headline;
    if (text === undefined) return [];
    return [{ experimentId: group.id, machine: tagged ? run.series : null, text }];
  }));
}

/** The runs' notes, then what each quantity means where a metric describes it; no repeats. */
function notes(group: ExperimentGroup): string[] {
  const tagged = group.runs.length > 1;
  const lines: string[] = [];
  for (const run of group.runs) {
    for (const note of run.results.notes) lines.push(tagged ? `${run.series}: ${note}` : note);
  }
  for (const run of group.runs) {
    for (const metric of run.results.metrics) {
      if (metric.description !== undefined) {
        lines.push(`${quantityOf(metric.name)}: ${metric.description}`);
      }
    }
  }
  return [...new Set(lines)];
}

function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
}

function parameters(group: ExperimentGroup): string[] {
  return group.runs.map((run) => {
    const entries = Object.entries(run.results.parameters)
      .map(([key, value]) => `${key} = ${parameterText(value)}`).join(', ');
    const mode = `${run.results.quick ? 'quick' : 'full'} run, seed ${run.results.seed}`;
    const where = group.runs.length > 1 ? `${run.series}: ` : '';
    return `${where}${mode}${entries === '' ? '' : `; ${entries}`}`;
  });
}

export function buildReportModel(
  groups: readonly ExperimentGroup[],
  charts: ReadonlyMap<string, readonly ReportChart[]>,
  warnings: readonly string[],
): ReportModel {
  const runs = groups.flatMap((group) => group.runs);
  const sections = groups.map((group) => ({
    id: group.id,
    question: group.question,
    charts: charts.get(group.id) ?? [],
    table: figureTable(group),
    notes: notes(group),
    parameters: parameters(group),
  }));
  return {
    headlines: headlines(groups, runs), warnings, sections,
    machines: machinesTable(runs), runs: runsTable(groups),
  };
}
