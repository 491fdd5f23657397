import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

/** The compiled TestUSDC contract, as cached in `src/dev/contracts/TestUSDC.json`. */
export interface TestTokenArtifact {
  contractName: "TestUSDC";
  /** SHA-256 (hex) of `TestUSDC.sol` the artifact was compiled from. */
  sourceHash: string;
  /** solc version that produced it. */
  compiler: string;
  evmVersion: string;
  abi: Abi;
  bytecode: Hex;
}

export interface LoadTestTokenArtifactOptions {
  /** Solidity source; default `src/dev/contracts/TestUSDC.sol`. */
  sourcePath?: string;
  /** Cached artifact; default `src/dev/contracts/TestUSDC.json`. */
  artifactPath?: string;
  /** Write a freshly compiled artifact back to `artifactPath` (default true). */
  writeCache?: boolean;
  log?: (line: string) => void;
}

const CONTRACT = "TestUSDC";
/** Pinned so the bytecode does not depend on the solc default; anvil runs a later hardfork. */
const EVM_VERSION = "cancun";

export const TEST_TOKEN_SOURCE_PATH = fileURLToPath(new URL("./contracts/TestUSDC.sol", import.meta.url));
export const TEST_TOKEN_ARTIFACT_PATH = fileURLToPath(new URL("./contracts/TestUSDC.json", import.meta.url));

/** SHA-256 of the source with line endings normalised, so a CRLF checkout still matches the cache. */
export function hashSource(source: string): string {
  return createHash("sha256").update(source.replace(/\r\n/g, "\n"), "utf8").digest("hex");
}

/**
 * The TestUSDC ABI and bytecode. Uses the committed artifact when its `sourceHash` matches the
 * Solidity source, so a fresh clone never compiles; otherwise compiles with solc-js and refreshes the cache.
 */
export async function loadTestTokenArtifact(
  options: LoadTestTokenArtifactOptions = {},
): Promise<TestTokenArtifact> {
  const sourcePath = options.sourcePath ?? TEST_TOKEN_SOURCE_PATH;
  const artifactPath = options.artifactPath ?? TEST_TOKEN_ARTIFACT_PATH;
  const cached = existsSync(artifactPath)
    ? (JSON.parse(readFileSync(artifactPath, "utf8")) as TestTokenArtifact)
    : undefined;
  // Installed without sources (e.g. a build): the cached artifact is all there is.
  if (!existsSync(sourcePath)) {
    if (cached === undefined) throw new Error(`neither ${sourcePath} nor ${artifactPath} exists`);
    return cached;
  }
  const source = readFileSync(sourcePath, "utf8");
  const sourceHash = hashSource(source);
  if (cached?.sourceHash === sourceHash) return cached;

  options.log?.(`compiling ${sourcePath} with solc-js (source changed since the cached artifact)`);
  const artifact = await compileTestUSDC(source, sourceHash);
  if (options.writeCache !== false) writeFileSync(artifactPath, await formatJson(artifact, artifactPath));
  return artifact;
}

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles `TestUSDC.sol` with solc-js (loaded only here: it takes seconds to load). */
export async function compileTestUSDC(source: string, sourceHash: string): Promise<TestTokenArtifact> {
  const { default: solc } = await import("solc");
  const input = {
    language: "Solidity",
    sources: { "TestUSDC.sol": { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { "*": { [CONTRACT]: ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((entry) => entry.formattedMessage).join("\n")}`);
  }
  const contract = output.contracts?.["TestUSDC.sol"]?.[CONTRACT];
  if (contract === undefined) throw new Error(`solc produced no ${CONTRACT} contract`);
  return {
    contractName: CONTRACT,
    sourceHash,
    compiler: solc.version() as string,
    evmVersion: EVM_VERSION,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
}

/** Formats as the repository's prettier would, so a refreshed artifact passes `format:check`. */
async function formatJson(value: unknown, path: string): Promise<string> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  try {
    const prettier = await import("prettier");
    const config = (await prettier.resolveConfig(path)) ?? {};
    return await prettier.format(text, { ...config, parser: "json" });
  } catch {
    return text;
  }
}
