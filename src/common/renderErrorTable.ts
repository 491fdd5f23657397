import { renderMarkdownTable } from "./renderMarkdownTable.js";

/** One code of an error catalogue: the HTTP status it is answered with and when that happens. */
export interface ErrorCatalogueEntry {
  readonly status: number;
  /** One line for the docs' table: what the client did (or what failed), and which `details` say more. */
  readonly when: string;
}

/** The `status | code | when` table of a catalogue, by status (catalogue order within a status). */
export function renderErrorTable(catalogue: Readonly<Record<string, ErrorCatalogueEntry>>): string {
  const rows = Object.entries(catalogue)
    .map(([code, entry], order) => ({ code, ...entry, order }))
    .sort((a, b) => a.status - b.status || a.order - b.order)
    .map(({ code, status, when }) => [String(status), `\`${code}\``, when]);
  return renderMarkdownTable(["status", "code", "when"], rows);
}
