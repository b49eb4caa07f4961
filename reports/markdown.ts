/**
 * report.md: a first screen that answers (the puzzle with a small chart, what `plan` recommends,
 * warnings), then one section per experiment (headline, question, charts with how to read them,
 * one table per quantity with what it means, notes), the environment at the end. Every value
 * from a results document is escaped, so a label can neither break a table nor inject HTML into
 * a rendered page.
 */
import type { Table } from './figure-table.js';
import type {
  FirstScreen,
  Headline,
  ReportModel,
  ReportSection,
  ReportTable,
} from './report-model.js';

/** Backslash-escapes Markdown punctuation; `&` becomes an entity; line breaks become spaces. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r?\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/[\\`*_{}[\]<>()#+!|~]/g, (char) => `\\${char}`);
}

/** Our own sentences: escaped, with their backtick code spans kept as code. */
function withCode(text: string): string {
  return text
    .split(/(`[A-Za-z0-9 .-]+`)/)
    .map((part) => (/^`[A-Za-z0-9 .-]+`$/.test(part) ? part : escapeMarkdown(part)))
    .join('');
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
  const rule = table.header.map((_, i) => (table.numeric?.[i] === true ? ' ---: ' : ' --- '));
  return [row(table.header), `|${rule.join('|')}|`, ...table.rows.map(row)];
}

function quantityTableLines(table: ReportTable): string[] {
  const shared = table.shared.length === 0 ? '' : ` · ${escapeMarkdown(table.shared.join(' · '))}`;
  const raw = /^[A-Za-z0-9_.-]+$/.test(table.quantity)
    ? `\`${table.quantity}\``
    : escapeMarkdown(table.quantity);
  const lines = [
    `**${escapeMarkdown(table.title)}** ${raw}${shared}`,
    '',
    ...tableLines(table.table),
    '',
  ];
  if (table.meaning !== null) lines.push(`*${escapeMarkdown(table.meaning)}*`, '');
  return lines;
}

function headlineLine(headline: Headline): string {
  const where = headline.machine === null ? '' : `**${escapeMarkdown(headline.machine)}:** `;
  return `${where}${escapeMarkdown(headline.text)}`;
}

function sectionLines(section: ReportSection): string[] {
  const lines = [`## ${escapeMarkdown(section.id)}`, ''];
  for (const headline of section.headlines) lines.push(headlineLine(headline), '');
  lines.push(`*Question:* ${escapeMarkdown(section.question)}`, '');
  for (const chart of section.charts) {
    lines.push(
      `![${escapeMarkdown(chart.title)}](${linkTarget(chart.pngFile)})`,
      '',
      `*How to read it:* ${escapeMarkdown(chart.howToRead)}`,
      '',
    );
  }
  for (const table of section.tables) lines.push(...quantityTableLines(table));
  if (section.notes.length > 0) {
    lines.push('### Notes', '', ...section.notes.map((note) => `- ${escapeMarkdown(note)}`), '');
  }
  lines.push(...section.parameters.map((line) => `*Run:* ${escapeMarkdown(line)}  `), '');
  return lines;
}

function firstScreenLines(screen: FirstScreen, sections: readonly ReportSection[]): string[] {
  const lines = ['# loglab report', '', `*${escapeMarkdown(screen.measured)}*`, ''];
  if (screen.warnings.length > 0) {
    lines.push(
      '> **Read with care**',
      '>',
      ...screen.warnings.map((warning) => `> - ${escapeMarkdown(warning)}`),
      '',
    );
  }
  for (const answer of screen.answers) {
    lines.push(`**${escapeMarkdown(answer.topic)}.** ${withCode(answer.text)}`, '');
  }
  if (screen.chart !== null) {
    lines.push(
      `![${escapeMarkdown(screen.chart.title)}](${linkTarget(screen.chart.pngFile)})`,
      '',
      `*How to read it:* ${escapeMarkdown(screen.chart.howToRead)}`,
      '',
    );
  }
  const links = sections.map(
    (section) =>
      `[${escapeMarkdown(section.id)}]` +
      `(#${section.id.toLowerCase().replace(/[^a-z0-9-]+/g, '-')})`,
  );
  lines.push(`Experiments: ${[...links, '[environment](#environment)'].join(' · ')}`, '');
  return lines;
}

export function renderMarkdown(model: ReportModel): string {
  const lines = firstScreenLines(model.firstScreen, model.sections);
  if (model.warnings.length > 0) {
    lines.push(
      '## Files left out',
      '',
      ...model.warnings.map((warning) => `- ${escapeMarkdown(warning)}`),
      '',
    );
  }
  for (const section of model.sections) lines.push(...sectionLines(section));
  lines.push(
    '## Environment',
    '',
    ...tableLines(model.machines),
    '',
    '### Runs',
    '',
    ...tableLines(model.runs),
    '',
  );
  return lines.join('\n');
}
