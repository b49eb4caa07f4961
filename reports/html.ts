/**
 * report.html: the same content as report.md in one self-contained file. Charts are inline SVG,
 * styles an inline sheet; there is no script, no font and no image to fetch, and a
 * Content-Security-Policy that forbids fetching anything keeps it that way when opened from disk.
 * Every value from a results document is escaped.
 */
import type { Table } from './figure-table.js';
import type { Headline, ReportChart, ReportModel, ReportSection } from './report-model.js';

const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.8rem; margin-bottom: 0.5rem; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; margin-top: 2.5rem; }
nav ul { columns: 3; padding-left: 1.2rem; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9rem; color: #555; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0 1rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.number { text-align: right; white-space: nowrap; }
.question { font-style: italic; }
.warnings li { color: #8a1c1c; }
.run { font-size: 0.85rem; color: #555; margin: 0.2rem 0; }
@media print {
  body { max-width: none; } h2 { break-before: page; } figure { break-inside: avoid; }
}
`;

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Section anchors: letters, digits and dashes only, so they need no escaping. */
function anchor(id: string): string {
  return `experiment-${id.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** Inline SVG needs no namespace declarations; dropping them leaves no URL in the file. */
function inlineSvg(svg: string): string {
  return svg.replace(/\s+xmlns(:[a-z]+)?="[^"]*"/g, '');
}

function isNumeric(cell: string): boolean {
  return /^[-\d.,]+( \S+)?$/.test(cell) || /^[-\d.,]+ – [-\d.,]+ \S+$/.test(cell);
}

function tableHtml(table: Table): string {
  const head = table.header.map((cell) => `<th>${escapeHtml(cell)}</th>`).join('');
  const cellHtml = (cell: string): string => isNumeric(cell)
    ? `<td class="number">${escapeHtml(cell)}</td>` : `<td>${escapeHtml(cell)}</td>`;
  const body = table.rows.map((row) => `<tr>${row.map(cellHtml).join('')}</tr>`);
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead>` +
    `<tbody>${body.join('\n')}</tbody></table></div>`;
}

function chartHtml(chart: ReportChart): string {
  return `<figure>${inlineSvg(chart.svg)}<figcaption>${escapeHtml(chart.title)}</figcaption>` +
    '</figure>';
}

function headlineHtml(headline: Headline): string {
  const where = headline.machine === null ? '' : ` (${escapeHtml(headline.machine)})`;
  return `<li><strong>${escapeHtml(headline.experimentId)}</strong>${where}: ` +
    `${escapeHtml(headline.text)}</li>`;
}

function sectionHtml(section: ReportSection): string {
  const parts = [`<section id="${anchor(section.id)}">`, `<h2>${escapeHtml(section.id)}</h2>`,
    `<p class="question">${escapeHtml(section.question)}</p>`,
    ...section.charts.map(chartHtml), tableHtml(section.table)];
  if (section.notes.length > 0) {
    parts.push('<h3>What the figures mean</h3>',
      `<ul>${section.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`);
  }
  parts.push(...section.parameters.map((line) => `<p class="run">${escapeHtml(line)}</p>`),
    '</section>');
  return parts.join('\n');
}

function contentsHtml(sections: readonly ReportSection[]): string {
  const items = sections.map((section) =>
    `<li><a href="#${anchor(section.id)}">${escapeHtml(section.id)}</a></li>`);
  return `<nav><ul>${items.join('')}<li><a href="#environment">environment</a></li></ul></nav>`;
}

export function renderHtml(model: ReportModel): string {
  const headlines = model.headlines.length === 0
    ? '<p>No results document carried a headline.</p>'
    : `<ul>${model.headlines.map(headlineHtml).join('\n')}</ul>`;
  const warnings = model.warnings.length === 0 ? '' : '<h2>Files left out</h2>' +
    `<ul class="warnings">${model.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`;
  return ['<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>loglab report</title>', `<style>${STYLE}</style>`, '</head>', '<body>',
    '<h1>loglab report</h1>', contentsHtml(model.sections), '<h2>Headlines</h2>', headlines,
    warnings, ...model.sections.map(sectionHtml),
    '<section id="environment"><h2>Environment</h2>', tableHtml(model.machines),
    '<h3>Runs</h3>', tableHtml(model.runs), '</section>', '</body>', '</html>', ''].join('\n');
}
