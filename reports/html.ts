/**
 * report.html: the same content as report.md in one self-contained file. It opens with one
 * screen that answers (the puzzle with a small chart, what `plan` recommends, warnings), then
 * each experiment in a collapsible section. Charts are inline SVG, styles an inline sheet; there
 * is no script, no font and no image to fetch, and a Content-Security-Policy that forbids
 * fetching anything keeps it that way when opened from disk. Every value from a results document
 * is escaped.
 */
import type { Table } from './figure-table.js';
import type {
  FirstScreen,
  Headline,
  ReportChart,
  ReportModel,
  ReportSection,
  ReportTable,
} from './report-model.js';

const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

/** The first screen's id: the browser test measures it against an 800 px tall window. */
export const FIRST_SCREEN_ID = 'first-screen';

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  max-width: 62rem; margin: 1rem auto; padding: 0 1rem; color: #1a1a1a; line-height: 1.4; }
h1 { font-size: 1.5rem; margin: 0 0 0.1rem; }
.measured { color: #555; margin: 0 0 0.6rem; font-size: 0.9rem; }
.warnings { border-left: 4px solid #b8860b; background: #fff8e1; padding: 0.3rem 0.8rem;
  margin: 0 0 0.6rem; font-size: 0.88rem; }
.warnings ul { margin: 0.2rem 0; padding-left: 1.1rem; }
.glance { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
.answers { flex: 1 1 20rem; }
.answers p { margin: 0 0 0.6rem; }
.glance figure { flex: 0 1 28rem; margin: 0; }
nav ul { columns: 4; padding-left: 1.2rem; margin: 0.4rem 0; font-size: 0.9rem; }
details { border-top: 1px solid #ddd; padding: 0.3rem 0; }
summary { cursor: pointer; }
summary h2 { display: inline; font-size: 1.25rem; margin: 0; }
summary .question { display: block; margin-left: 1.2rem; }
figure { margin: 1rem 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.9rem; color: #444; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.82rem; margin: 0.3rem 0 0.4rem; max-width: 100%; }
caption { text-align: left; font-weight: 600; padding: 0.2rem 0; }
caption code { font-weight: normal; color: #555; }
caption .shared { font-weight: normal; color: #555; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.45rem; text-align: left; vertical-align: top;
  overflow-wrap: anywhere; }
th { background: #f4f4f4; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
.meaning { font-size: 0.85rem; color: #444; margin: 0 0 1rem; }
.question { font-style: italic; }
.headline { font-weight: 500; }
.left-out li { color: #8a1c1c; }
.run { font-size: 0.85rem; color: #555; margin: 0.2rem 0; }
@media print {
  body { max-width: none; } details { break-before: page; } figure { break-inside: avoid; }
}
`;

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Section anchors: letters, digits and dashes only, so they need no escaping. */
function anchor(id: string): string {
  return `experiment-${id.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** Inline SVG needs no namespace declarations; dropping them leaves no URL in the file. */
function inlineSvg(svg: string): string {
  return svg.replace(/\s+xmlns(:[a-z]+)?="[^"]*"/g, '');
}

/** `code` spans of Markdown-style backticks in our own sentences, escaped. */
function withCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function tableHtml(table: Table, caption = ''): string {
  const numeric = (i: number): boolean => table.numeric?.[i] === true;
  const cls = (i: number): string => (numeric(i) ? ' class="number"' : '');
  const head = table.header.map((cell, i) => `<th${cls(i)}>${escapeHtml(cell)}</th>`).join('');
  const body = table.rows.map((row, r) => {
    const name = table.rowNames?.[r];
    const title = name === undefined ? '' : ` title="${escapeHtml(name)}"`;
    return `<tr${title}>${row
      .map((cell, i) => `<td${cls(i)}>${escapeHtml(cell)}</td>`)
      .join('')}</tr>`;
  });
  return (
    `<div class="table-wrap"><table>${caption}<thead><tr>${head}</tr></thead>` +
    `<tbody>${body.join('\n')}</tbody></table></div>`
  );
}

function quantityTableHtml(table: ReportTable): string {
  const shared =
    table.shared.length === 0
      ? ''
      : ` <span class="shared">· ${escapeHtml(table.shared.join(' · '))}</span>`;
  const caption =
    `<caption><span title="${escapeHtml(table.quantity)}">` +
    `${escapeHtml(table.title)}</span> <code>${escapeHtml(table.quantity)}</code>${shared}` +
    '</caption>';
  const meaning =
    table.meaning === null ? '' : `<p class="meaning">${escapeHtml(table.meaning)}</p>`;
  return tableHtml(table.table, caption) + meaning;
}

function chartHtml(chart: ReportChart): string {
  return (
    `<figure>${inlineSvg(chart.svg)}<figcaption>${escapeHtml(chart.howToRead)}` +
    '</figcaption></figure>'
  );
}

function headlineHtml(headline: Headline): string {
  const where =
    headline.machine === null ? '' : `<strong>${escapeHtml(headline.machine)}:</strong> `;
  return `<p class="headline">${where}${escapeHtml(headline.text)}</p>`;
}

function sectionHtml(section: ReportSection): string {
  const parts = [
    `<details id="${anchor(section.id)}">`,
    `<summary><h2>${escapeHtml(section.id)}</h2>` +
      `<span class="question">${escapeHtml(section.question)}</span></summary>`,
    ...section.headlines.map(headlineHtml),
    ...section.charts.map(chartHtml),
    ...section.tables.map(quantityTableHtml),
  ];
  if (section.notes.length > 0) {
    parts.push(
      '<h3>Notes</h3>',
      `<ul>${section.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`,
    );
  }
  parts.push(
    ...section.parameters.map((line) => `<p class="run">${escapeHtml(line)}</p>`),
    '</details>',
  );
  return parts.join('\n');
}

function contentsHtml(sections: readonly ReportSection[]): string {
  const items = sections.map(
    (section) => `<li><a href="#${anchor(section.id)}">${escapeHtml(section.id)}</a></li>`,
  );
  return `<nav><ul>${items.join('')}<li><a href="#environment">environment</a></li></ul></nav>`;
}

function firstScreenHtml(screen: FirstScreen, sections: readonly ReportSection[]): string {
  const warnings =
    screen.warnings.length === 0
      ? ''
      : '<div class="warnings" role="note">' +
        `<strong>Read with care</strong><ul>${screen.warnings
          .map((w) => `<li>${escapeHtml(w)}</li>`)
          .join('')}</ul></div>`;
  const answers = screen.answers
    .map(
      (answer) => `<p><strong>${escapeHtml(answer.topic)}.</strong> ${withCode(answer.text)}</p>`,
    )
    .join('');
  const chart = screen.chart === null ? '' : chartHtml(screen.chart);
  return [
    `<section id="${FIRST_SCREEN_ID}">`,
    '<h1>loglab report</h1>',
    `<p class="measured">${escapeHtml(screen.measured)}</p>`,
    warnings,
    `<div class="glance"><div class="answers">${answers}</div>${chart}</div>`,
    contentsHtml(sections),
    '</section>',
  ].join('\n');
}

export function renderHtml(model: ReportModel): string {
  const warnings =
    model.warnings.length === 0
      ? ''
      : '<h2>Files left out</h2>' +
        `<ul class="left-out">${model.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}` +
        '</ul>';
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>loglab report</title>',
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    firstScreenHtml(model.firstScreen, model.sections),
    warnings,
    ...model.sections.map(sectionHtml),
    '<details id="environment"><summary><h2>Environment</h2></summary>',
    tableHtml(model.machines),
    '<h3>Runs</h3>',
    tableHtml(model.runs),
    '</details>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
