import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = resolve(ROOT, "src");

/**
 * Every specifier a source file loads at run time: `import`/`export … from` (not `import type`), side-effect
 * imports and `import()`; type-only imports are erased by TypeScript and load nothing.
 */
function runtimeSpecifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const statics = /^(import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?"([^"]+)";/gms;
  for (const match of text.matchAll(statics)) if (match[2] === undefined) found.push(match[3] as string);
  for (const match of text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) found.push(match[1] as string);
  return found;
}

/** Node's own modules, named with or without `node:`. */
const isNodeModule = (specifier: string) =>
  specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] as string);

/** The source modules `entries` load, through relative imports, each with the Node modules it imports. */
function nodeImportsOf(entries: string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const specifiers = runtimeSpecifiers(file);
    seen.set(file, specifiers.filter(isNodeModule));
    for (const specifier of specifiers)
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
  };
  entries.forEach((entry) => visit(resolve(SRC, entry)));
  return seen;
}

/**
 * The modules of the Fetch adapter's graph that still import `node:crypto`/`node:buffer`: the CBOR wire's
 * signatures and hashes, the ledgers' ids, the base64 codecs. Each is to be ported to Web Crypto /
 * `@noble/*`, then struck from this list (the test fails if a listed one no longer imports Node, so the
 * list only shrinks). Until it is empty the Fetch adapter runs on Node, Bun and Deno, not on Workers.
 */
const STILL_TO_PORT = [
  // The facilitator client's Node transport (node:http keep-alive, #32): to be loaded only on Node.
  "facilitator/facilitatorTransport.ts",
  "ledger/MemoryPaymentLedger.ts",
  "ledger/RedisPaymentLedger.ts",
  "ledger/paymentIdentity.ts",
  "paywall/wires/CborPaymentWire.ts",
  "pricing/cborPaymentRequests.ts",
  "protocol/base64Json.ts",
  "protocol/cbor/PaymentRequest.ts",
  "protocol/cbor/SettlementReceipt.ts",
  "protocol/cbor/SignedClaim.ts",
  "protocol/cbor/checkDelegationChain.ts",
  "protocol/cbor/checkHumanityClaim.ts",
  "protocol/cbor/masks/RevelationMask.ts",
  "protocol/cbor/receiptCommitments.ts",
  "protocol/cbor/signatures.ts",
  "protocol/decodeBase64.ts",
  "recognition/RedisRevokedPayers.ts",
  "recognition/SignInNonces.ts",
  "signers/Eip1271Wallets.ts",
].sort();

describe("the Fetch adapters' import graph (issue 33, item 1)", () => {
  const graph = nodeImportsOf(["adapters/fetch.ts", "adapters/hono.ts"]);
  const importers = [...graph]
    .filter(([, modules]) => modules.length > 0)
    .map(([file]) => relative(SRC, file))
    .sort();

  it("walks the whole graph: the flow, both wires, the ledgers and the facilitator client", () => {
    expect(graph.size).toBeGreaterThan(150);
    for (const part of [
      "paywall/flow/PaymentFlow.ts",
      "paywall/wires/JsonPaymentWire.ts",
      "paywall/wires/CborPaymentWire.ts",
      "facilitator/HttpFacilitator.ts",
    ])
      expect(graph.has(resolve(SRC, part)), part).toBe(true);
  });

  it("the adapters, the flow, the response port and the JSON wire import no node: module", () => {
    const core = [...graph.keys()]
      .map((file) => relative(SRC, file))
      .filter((file) => file.startsWith("adapters/") || file.startsWith("paywall/"))
      .filter((file) => file !== "paywall/wires/CborPaymentWire.ts");
    expect(core.length).toBeGreaterThan(30);
    expect(core.filter((file) => importers.includes(file))).toEqual([]);
  });

  it("node: modules are imported only where the list of modules still to port says", () => {
    expect(importers).toEqual(STILL_TO_PORT);
  });

  it("the check can fail: the Node adapter's graph imports node:http", () => {
    const node = nodeImportsOf(["adapters/node.ts"]);
    expect(node.get(resolve(SRC, "adapters/holdNodeResponse.ts"))).toContain("node:http");
  });
});
