import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toFunctionSignature, type AbiFunction } from "viem";
import {
  contractArtifactPath,
  contractSourcePath,
  DEV_CONTRACTS,
  hashSource,
  type ContractArtifact,
  type DevContract,
} from "../../src/dev/loadContractArtifact.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";

const artifact = (contract: DevContract) =>
  JSON.parse(readFileSync(contractArtifactPath(contract), "utf8")) as ContractArtifact;

describe("the committed contract artifacts", () => {
  it.each(DEV_CONTRACTS)(
    "%s.json was compiled from the current .sol (else run `npx tsx src/dev/compileContracts.ts`)",
    (contract) => {
      expect(artifact(contract).sourceHash).toBe(
        hashSource(readFileSync(contractSourcePath(contract), "utf8")),
      );
      expect(artifact(contract).bytecode).toMatch(/^0x[0-9a-f]{200,}$/);
    },
  );

  it("TestUSDC has every function the dev tools call through testUSDCAbi", () => {
    const compiled = new Set(
      artifact("TestUSDC")
        .abi.filter((item): item is AbiFunction => item.type === "function")
        .map((item) => toFunctionSignature(item)),
    );
    const used = testUSDCAbi
      .filter((item) => item.type === "function")
      .map((item) => toFunctionSignature(item));
    expect(used.filter((signature) => !compiled.has(signature))).toEqual([]);
  });

  it("the hash ignores CRLF line endings", () => {
    expect(hashSource("a\r\nb\r\n")).toBe(hashSource("a\nb\n"));
  });
});
