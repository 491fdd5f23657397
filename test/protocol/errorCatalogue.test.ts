import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CATALOGUE, ERROR_STATUS, GatewayError, type ErrorCode } from "../../src/protocol/errors.js";
import { renderErrorsReference } from "../../src/protocol/renderErrorsReference.js";
import { errorTableRows, expectWellFormedCatalogue } from "../support/errorCatalogues.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const CATALOGUE_FILES = [join("protocol", "errors.ts"), join("protocol", "renderErrorsReference.ts")];
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The published sources (dev/ holds local doubles with their own bodies), path → text. */
const sources = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((path) => path.endsWith(".ts") && !path.startsWith("dev/"))
  .map((path) => [path, readFileSync(join(SRC, path), "utf8")] as const);

describe("the gateway's error catalogue", () => {
  it("docs/errors.md is up to date with the catalogue (run `npm run docs`)", async () => {
    const page = await readFile(new URL("../../docs/errors.md", import.meta.url), "utf8");
    expect(page).toBe(renderErrorsReference());
  });

  it("docs/errors.md has one row per code, by status, with the catalogue's status and when", () => {
    const rows = errorTableRows(renderErrorsReference());
    expect(rows.map((row) => row.code).sort()).toEqual([...CODES].sort());
    for (const { status, code, when } of rows) {
      expect({ status, when }).toEqual(ERROR_CATALOGUE[code as ErrorCode]);
    }
    const statuses = rows.map((row) => row.status);
    expect(statuses).toEqual([...statuses].sort((x, y) => x - y));
  });

  it("gives every code an error status and a one-line when, and builds its errors from them", () => {
    expectWellFormedCatalogue(ERROR_CATALOGUE, /^[a-z]+(_[a-z]+)*$/);
    for (const code of CODES) {
      const error = new GatewayError(code, "m");
      expect([error.status, ERROR_STATUS[code], error.toBody().error]).toEqual([
        ERROR_CATALOGUE[code].status,
        ERROR_CATALOGUE[code].status,
        code,
      ]);
    }
  });

  it("holds every code the sources construct a GatewayError with", () => {
    const constructed = new Set<string>();
    for (const [, text] of sources) {
      for (const [, code] of text.matchAll(/new GatewayError\(\s*"([^"]+)"/g)) constructed.add(code!);
      // Subclasses name their code in super(…).
      if (/extends GatewayError\b/.test(text)) {
        for (const [, code] of text.matchAll(/super\(\s*"([^"]+)"/g)) constructed.add(code!);
      }
    }
    expect(constructed.size).toBeGreaterThan(15);
    expect([...constructed].filter((code) => !(code in ERROR_CATALOGUE))).toEqual([]);
  });

  it("lists no code the sources never send (each is written outside the catalogue)", () => {
    const unused = CODES.filter(
      (code) =>
        !sources.some(([path, text]) => !CATALOGUE_FILES.includes(path) && text.includes(`"${code}"`)),
    );
    expect(unused).toEqual([]);
  });
});
