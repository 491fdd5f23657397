import { expect } from "vitest";
import type { ErrorCatalogueEntry } from "../../src/common/ErrorCatalogueEntry.js";

/** The rows of the generated `status | code | when` tables in a Markdown page, in page order. */
export function errorTableRows(page: string): Array<{ status: number; code: string; when: string }> {
  return page
    .split("\n")
    .filter((line) => /^\| \d{3} /.test(line))
    .map((line) => {
      const [, status, code, when] = line.split("|").map((cell) => cell.trim());
      return { status: Number(status), code: code!.replace(/`/g, ""), when: when! };
    });
}

/** Every code is spelled as `codePattern` says, has an error status and a one-line "when". */
export function expectWellFormedCatalogue(
  catalogue: Readonly<Record<string, ErrorCatalogueEntry>>,
  codePattern: RegExp,
): void {
  expect(Object.keys(catalogue).length).toBeGreaterThan(10);
  for (const [code, { status, when }] of Object.entries(catalogue)) {
    expect(code).toMatch(codePattern);
    expect(Number.isInteger(status) && status >= 400 && status <= 599, code).toBe(true);
    expect(when.trim().length, code).toBeGreaterThan(5);
    expect(when, code).not.toMatch(/[\n|]/);
  }
}
