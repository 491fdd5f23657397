/**
 * A Markdown table laid out as Prettier lays it out (every column as wide as its widest cell), so a
 * generated page passes `prettier --check` unchanged. Cells are single lines; `|` is escaped. Widths count
 * characters, which is what Prettier does for all but East Asian wide ones (none are written here).
 */
export function renderMarkdownTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string {
  const cell = (text: string | undefined) => (text ?? "").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
  const body = rows.map((row) => header.map((_, column) => cell(row[column])));
  const head = header.map((text) => cell(text));
  const widths = head.map((_, column) => Math.max(3, ...[head, ...body].map((row) => width(row[column]!))));
  const line = (row: readonly string[]) =>
    `| ${row.map((text, column) => text + " ".repeat(widths[column]! - width(text))).join(" | ")} |`;
  return [line(head), `| ${widths.map((size) => "-".repeat(size)).join(" | ")} |`, ...body.map(line)].join(
    "\n",
  );
}

// Prettier counts characters, not UTF-16 units (an ellipsis or an arrow is one column).
const width = (text: string): number => [...text].length;
