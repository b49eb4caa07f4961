/**
 * An aligned text table for a terminal: the header, a rule of dashes under it, then the rows,
 * each column as wide as its widest cell, two spaces between columns, no trailing blanks.
 */
export function alignedTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string[] {
  const table = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const lines = table.map((row) =>
    row
      .map((text, column) => text.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((width) => '-'.repeat(width)).join('  '));
  return lines;
}
