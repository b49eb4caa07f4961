/**
 * report.md: headlines first, then one section per experiment (question, chart images, table of
 * figures, what they mean), the environment at the end. Every value from a results document is
 * escaped, so a label can neither break a table nor inject HTML into a rendered page.
 */
import type { Table } from './figure-table.js';
import type { Headline, ReportModel, ReportSection } from './report-model.js';

/** Backslash-escapes Markdown punctuation; `&` becomes an entity; line breaks become spaces. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/&/g, '&amp;')
    .replace(/[\\`*_{}[\]<>()#+!|~]/g, (char) => `\\${char}`);
}

/** A relative link target, kept to characters that need no escaping in Markdown. */
function linkTarget(path: string): string {
  if (!/^[A-Za-z0-9._/-]+$/.test(path)) {
    throw new Error(`assertion failed: chart path '${path}' is plain`);
  }
  return path;
}

function tableLines(table: Table): string[] {
  const row = (cells: readonly string[]): string =>
    `| ${cells.map((cell) => escapeMarkdown(cell)).join(' | ')} |`;
  return [row(table.header), `|${table.header.map(() => ' --- ').join('|')}|`,
    ...table.rows.map(row)];
}

function headlineLine(headline: Headline): string {
  const where = headline.machine === null ? '' : ` (${escapeMarkdown(headline.machine)})`;
  return `- **${escapeMarkdown(headline.experimentId)}**${where}: ${escapeMarkdown(headline.text)}`;
}

function sectionLines(section: ReportSection): string[] {
  const lines = [`## ${escapeMarkdown(section.id)}`, '',
    `*Question:* ${escapeMarkdown(section.question)}`, ''];
  for (const chart of section.charts) {
    lines.push(`![${escapeMarkdown(chart.title)}](${linkTarget(chart.pngFile)})`, '');
  }
  lines.push(...tableLines(section.table), '');
  if (section.notes.length > 0) {
    lines.push('### What the figures mean', '',
      ...section.notes.map((note) => `- ${escapeMarkdown(note)}`), '');
  }
  lines.push(...section.parameters.map((line) => `*Run:* ${escapeMarkdown(line)}  `), '');
  return lines;
}

export function renderMarkdown(model: ReportModel): string {
  const lines = ['# loglab report', '', '## Headlines', ''];
  if (model.headlines.length === 0) lines.push('No results document carried a headline.');
  lines.push(...model.headlines.map(headlineLine), '');
  if (model.warnings.length > 0) {
    lines.push('## Files left out', '',
      ...model.warnings.map((warning) => `- ${escapeMarkdown(warning)}`), '');
  }
  for (const section of model.sections) lines.push(...sectionLines(section));
  lines.push('## Environment', '', ...tableLines(model.machines), '',
    '### Runs', '', ...tableLines(model.runs), '');
  return lines.join('\n');
}
