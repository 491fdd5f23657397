import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

/** The contracts of the local stack, each in `src/dev/contracts/<name>.sol`. */
export const DEV_CONTRACTS = [
  "TestUSDC",
  "TryAggregate",
  "TestSmartWallet",
  "TestPermit2",
  "TestUptoPermit2Proxy",
] as const;
export type DevContract = (typeof DEV_CONTRACTS)[number];

/** A compiled contract, as cached in `src/dev/contracts/<name>.json`. */
export interface ContractArtifact {
  contractName: DevContract;
  /** SHA-256 (hex) of the Solidity source the artifact was compiled from (line endings normalised). */
  sourceHash: string;
  /** solc version that produced it. */
  compiler: string;
  evmVersion: string;
  abi: Abi;
  bytecode: Hex;
}

export interface LoadContractArtifactOptions {
  contract: DevContract;
  /** Solidity source; default `src/dev/contracts/<contract>.sol`. */
  sourcePath?: string;
  /** Cached artifact; default `src/dev/contracts/<contract>.json`. */
  artifactPath?: string;
  /** Write a freshly compiled artifact back to `artifactPath` (default true). */
  writeCache?: boolean;
  log?: (line: string) => void;
}

/** Pinned so the bytecode does not depend on the solc default; anvil runs a later hardfork. */
const EVM_VERSION = "cancun";

export function contractSourcePath(contract: DevContract): string {
  return fileURLToPath(new URL(`./contracts/${contract}.sol`, import.meta.url));
}

export function contractArtifactPath(contract: DevContract): string {
  return fileURLToPath(new URL(`./contracts/${contract}.json`, import.meta.url));
}

/** SHA-256 of the source with line endings normalised, so a CRLF checkout still matches the cache. */
export function hashSource(source: string): string {
  return createHash("sha256").update(source.replace(/\r\n/g, "\n"), "utf8").digest("hex");
}

/**
 * A dev contract's ABI and bytecode. Uses the committed artifact when its `sourceHash` matches the
 * Solidity source, so a fresh clone never compiles; otherwise compiles with solc-js and refreshes the cache.
 */
export async function loadContractArtifact(options: LoadContractArtifactOptions): Promise<ContractArtifact> {
  const sourcePath = options.sourcePath ?? contractSourcePath(options.contract);
  const artifactPath = options.artifactPath ?? contractArtifactPath(options.contract);
  const cached = existsSync(artifactPath)
    ? (JSON.parse(readFileSync(artifactPath, "utf8")) as ContractArtifact)
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
  const artifact = await compileContract(options.contract, source, sourceHash);
  if (options.writeCache !== false) writeFileSync(artifactPath, await formatJson(artifact, artifactPath));
  return artifact;
}

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles one dev contract with solc-js (loaded only here: it takes seconds to load). */
export async function compileContract(
  contract: DevContract,
  source: string,
  sourceHash: string,
): Promise<ContractArtifact> {
  const { default: solc } = await import("solc");
  const file = `${contract}.sol`;
  const input = {
    language: "Solidity",
    sources: { [file]: { content: source } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: EVM_VERSION,
      outputSelection: { "*": { [contract]: ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)) as string) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((entry) => entry.formattedMessage).join("\n")}`);
  }
  const compiled = output.contracts?.[file]?.[contract];
  if (compiled === undefined) throw new Error(`solc produced no ${contract} contract`);
  return {
    contractName: contract,
    sourceHash,
    compiler: solc.version() as string,
    evmVersion: EVM_VERSION,
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
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
