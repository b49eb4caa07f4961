/**
 * What a report says, before it is written as Markdown or HTML: a first screen that answers
 * (the puzzle, what `plan` recommends, warnings), then one section per experiment (headline,
 * question, charts, one table per quantity with what it means, notes, parameters), the files
 * left out, the environment.
 */
import { machinesTable, runsTable } from './environment-table.js';
import { figureTables, type QuantityTable, type Table } from './figure-table.js';
import { glanceRecommendation, planSentence } from './glance-plan.js';
import { type PuzzleAnswer, puzzleAnswer, puzzleSentence } from './glance-puzzle.js';
import { runWarnings } from './glance-warnings.js';
import { quantityMeanings } from './meanings.js';
import type { ExperimentGroup, Run } from './runs.js';

export interface ReportChart {
  readonly title: string;
  /** One line on how to read it, shown under the chart. */
  readonly howToRead: string;
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

/** One quantity's table with what the quantity means, said once. */
export interface ReportTable extends QuantityTable {
  readonly meaning: string | null;
}

export interface ReportSection {
  readonly id: string;
  readonly question: string;
  readonly headlines: readonly Headline[];
  readonly charts: readonly ReportChart[];
  readonly tables: readonly ReportTable[];
  readonly notes: readonly string[];
  readonly parameters: readonly string[];
}

/** One answer on the first screen: who asks, and the sentence that answers. */
export interface Answer {
  readonly topic: string;
  readonly text: string;
}

export interface FirstScreen {
  /** What was measured: `vda · ext4 · Linux 6.1 · 10 experiments, quick`. */
  readonly measured: string;
  readonly warnings: readonly string[];
  readonly answers: readonly Answer[];
  readonly chart: ReportChart | null;
}

export interface ReportModel {
  readonly firstScreen: FirstScreen;
  readonly headlines: readonly Headline[];
  readonly warnings: readonly string[];
  readonly sections: readonly ReportSection[];
  readonly machines: Table;
  readonly runs: Table;
}

/** The puzzle's answer from the first puzzle run, if the report has one. */
export function firstPuzzleAnswer(groups: readonly ExperimentGroup[]): PuzzleAnswer | null {
  const run = groups.find((group) => group.id === 'puzzle')?.runs[0];
  return run === undefined ? null : puzzleAnswer(run.results);
}

function severalMachines(runs: readonly Run[]): boolean {
  return new Set(runs.map((run) => run.machineKey)).size > 1;
}

function headlinesOf(group: ExperimentGroup, tagged: boolean): Headline[] {
  return group.runs.flatMap((run) => {
    const text = run.results.headline;
    if (text === undefined) return [];
    return [{ experimentId: group.id, machine: tagged ? run.series : null, text }];
  });
}

function notes(group: ExperimentGroup): string[] {
  const tagged = group.runs.length > 1;
  const lines = group.runs.flatMap((run) =>
    run.results.notes.map((note) => (tagged ? `${run.series}: ${note}` : note)),
  );
  return [...new Set(lines)];
}

function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

function parameters(group: ExperimentGroup): string[] {
  return group.runs.map((run) => {
    const entries = Object.entries(run.results.parameters)
      .map(([key, value]) => `${key} = ${parameterText(value)}`)
      .join(', ');
    const mode = `${run.results.quick ? 'quick' : 'full'} run, seed ${run.results.seed}`;
    const where = group.runs.length > 1 ? `${run.series}: ` : '';
    return `${where}${mode}${entries === '' ? '' : `; ${entries}`}`;
  });
}

function measuredText(runs: readonly Run[], groups: readonly ExperimentGroup[]): string {
  const machines = [...new Set(runs.map((run) => run.machine))];
  const where = machines.length === 1 ? machines[0] : `${machines.length} machines`;
  const sizes = [...new Set(runs.map((run) => (run.results.quick ? 'quick' : 'full')))];
  return (
    `${where} · ${groups.length} experiment${groups.length === 1 ? '' : 's'}, ` +
    `${sizes.join(' and ')} run${sizes.length === 1 ? '' : 's'}`
  );
}

function firstScreen(
  groups: readonly ExperimentGroup[],
  runs: readonly Run[],
  chart: ReportChart | null,
): FirstScreen {
  const answers: Answer[] = [];
  const where = severalMachines(runs)
    ? `on ${runs[0]?.machine ?? 'the first machine'}`
    : 'on this disk';
  const answer = firstPuzzleAnswer(groups);
  const puzzle = answer === null ? null : puzzleSentence(answer, where);
  if (puzzle !== null) answers.push({ topic: 'The puzzle', text: puzzle });
  answers.push({ topic: 'Sizing a log', text: planSentence(glanceRecommendation(runs)) });
  return { measured: measuredText(runs, groups), warnings: runWarnings(runs), answers, chart };
}

function tablesOf(group: ExperimentGroup): ReportTable[] {
  const meanings = quantityMeanings(group);
  return figureTables(group).map((table) => ({
    ...table,
    meaning: meanings.get(table.quantity) ?? null,
  }));
}

export function buildReportModel(
  groups: readonly ExperimentGroup[],
  charts: ReadonlyMap<string, readonly ReportChart[]>,
  warnings: readonly string[],
  glanceChart: ReportChart | null = null,
): ReportModel {
  const runs = groups.flatMap((group) => group.runs);
  const tagged = severalMachines(runs);
  const sections = groups.map((group) => ({
    id: group.id,
    question: group.question,
    headlines: headlinesOf(group, tagged),
    charts: charts.get(group.id) ?? [],
    tables: tablesOf(group),
    notes: notes(group),
    parameters: parameters(group),
  }));
  return {
    firstScreen: firstScreen(groups, runs, glanceChart),
    headlines: sections.flatMap((section) => section.headlines),
    warnings,
    sections,
    machines: machinesTable(runs),
    runs: runsTable(groups),
  };
}
