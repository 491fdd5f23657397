import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as staking from "../../src/staking/index.js";
import { STAKING_ERRORS, StakingError, type StakingErrorCode } from "../../src/staking/errors.js";
import { renderStakingErrorsSection } from "../../src/staking/renderStakingErrorsSection.js";
import { errorTableRows, expectWellFormedCatalogue } from "../support/errorCatalogues.js";

const STAKING_SRC = fileURLToPath(new URL("../../src/staking/", import.meta.url));
const CODES = Object.keys(STAKING_ERRORS) as StakingErrorCode[];
const PAGE = new URL("../../docs/staking-backend.md", import.meta.url);

describe("the staking backend's error catalogue", () => {
  it("docs/staking-backend.md's error table is up to date with the catalogue (run `npm run docs`)", async () => {
    const page = await readFile(PAGE, "utf8");
    expect(page).toBe(renderStakingErrorsSection(page));
  });

  it("the page's table lists every code once, between its markers, with the catalogue's status and when", async () => {
    const page = await readFile(PAGE, "utf8");
    const region = page.slice(page.indexOf("<!-- errors:start -->"), page.indexOf("<!-- errors:end -->"));
    const rows = errorTableRows(region);
    expect(rows.map((row) => row.code).sort()).toEqual([...CODES].sort());
    for (const { status, code, when } of rows) {
      expect({ status, when }).toEqual(STAKING_ERRORS[code as StakingErrorCode]);
    }
  });

  it("gives every code an error status and a one-line when", () => {
    expectWellFormedCatalogue(STAKING_ERRORS, /^[A-Z]+(_[A-Z]+)*$/);
  });

  it("each code is an error class's, answered with the catalogue's status, and no class has a code outside it", () => {
    const written = new Set<string>();
    for (const path of readdirSync(STAKING_SRC, { recursive: true, encoding: "utf8" })) {
      if (!path.endsWith(".ts")) continue;
      const text = readFileSync(join(STAKING_SRC, path), "utf8");
      for (const [, code] of text.matchAll(/super\(\{\s*code:\s*"([^"]+)"/g)) written.add(code!);
    }
    expect([...written].sort()).toEqual([...CODES].sort());

    // Every exported error class, built with placeholder arguments, carries its catalogue status.
    type ErrorClass = new (...args: unknown[]) => StakingError;
    const classes = (Object.values(staking) as unknown[]).filter(
      (value): value is ErrorClass =>
        typeof value === "function" && (value as ErrorClass).prototype instanceof StakingError,
    );
    const built = classes.map((ErrorClass) => new ErrorClass("0x1", "STRK", 1n, 2n));
    expect(built.map((error) => error.code).sort()).toEqual([...CODES].sort());
    for (const error of built) expect(error.status, error.code).toBe(STAKING_ERRORS[error.code].status);
  });
});
