import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toFunctionSignature, type AbiFunction } from "viem";
import {
  hashSource,
  TEST_TOKEN_ARTIFACT_PATH,
  TEST_TOKEN_SOURCE_PATH,
  type TestTokenArtifact,
} from "../../src/dev/loadTestTokenArtifact.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";

const artifact = JSON.parse(readFileSync(TEST_TOKEN_ARTIFACT_PATH, "utf8")) as TestTokenArtifact;

describe("the committed TestUSDC artifact", () => {
  it("was compiled from the current TestUSDC.sol (run `npx tsx src/dev/compileTestToken.ts` after editing it)", () => {
    expect(artifact.sourceHash).toBe(hashSource(readFileSync(TEST_TOKEN_SOURCE_PATH, "utf8")));
    expect(artifact.bytecode).toMatch(/^0x[0-9a-f]{200,}$/);
  });

  it("has every function the dev tools call through testUSDCAbi", () => {
    const compiled = new Set(
      artifact.abi
        .filter((item): item is AbiFunction => item.type === "function")
        .map((item) => toFunctionSignature(item)),
    );
    const used = testUSDCAbi
      .filter((item) => item.type === "function")
      .map((item) => toFunctionSignature(item));
    expect(used.filter((signature) => !compiled.has(signature))).toEqual([]);
  });
});
