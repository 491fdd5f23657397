import type { ErrorCatalogueEntry } from "./ErrorCatalogueEntry.js";
import { renderMarkdownTable } from "./renderMarkdownTable.js";

/** The `status | code | when` table of a catalogue, by status (catalogue order within a status). */
export function renderErrorTable(catalogue: Readonly<Record<string, ErrorCatalogueEntry>>): string {
  const rows = Object.entries(catalogue)
    .map(([code, entry], order) => ({ code, ...entry, order }))
    .sort((a, b) => a.status - b.status || a.order - b.order)
    .map(({ code, status, when }) => [String(status), `\`${code}\``, when]);
  return renderMarkdownTable(["status", "code", "when"], rows);
}
