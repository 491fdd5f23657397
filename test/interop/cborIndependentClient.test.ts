import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { startCborTarget, type CborTarget } from "../support/cborTargets.js";
import {
  fetchOffer,
  fund,
  freshPayer,
  pay,
  receiptKeyOf,
  verifyReceipt,
} from "./independentClient/client.js";
import { payMasked } from "./independentClient/maskedClient.js";

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = join(here, "independentClient");
const srcDir = resolve(here, "../../src");
const MERCHANT = "merchant:stranger";
const PRICE = 2_500;
const FUNDED = 10_000;
/** 20 STRK (18 decimals): past 2^64 - 1, so a bignum (tag 2) on the wire. */
const TWENTY_STRK = 20n * 10n ** 18n;

let facilitator: RunningCborFacilitator;
let target: CborTarget;

beforeAll(async () => {
  facilitator = await startCborFacilitator();
  target = await startCborTarget(
    "x402-gateway serve",
    {
      facilitator: { url: facilitator.url },
      payTo: "0x000000000000000000000000000000000000dEaD",
      network: "eip155:31337",
      cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
      routes: {
        "GET /quote": { cbor: { currency: "USDC", amount: String(PRICE) } },
        "GET /strk": { cbor: { currency: "STRK", amount: String(TWENTY_STRK) } },
        "GET /sealed": {
          cbor: {
            currency: "USDC",
            amount: String(PRICE),
            revelationMask: { intent: { subject: "Encrypted", time: "ZK" }, receipt: { subject: "Commit" } },
          },
        },
        "GET /committed": {
          cbor: {
            currency: "USDC",
            amount: String(PRICE),
            revelationMask: {
              intent: { subject: "Commit", time: "Encrypted" },
              receipt: { subject: "Commit" },
            },
          },
        },
      },
    },
    Date.now,
  );
}, 60_000);
afterAll(async () => {
  await target?.stop();
  await facilitator?.stop();
});

describe("a client written from docs/cbor.md alone (cborg + @noble, nothing from src/)", () => {
  it("funds a fresh Ed25519 key, pays, gets 200 and a receipt that verifies against /supported; books move once", async () => {
    const payer = freshPayer();
    const nowSeconds = () => Math.floor(Date.now() / 1000);
    const unfunded = await pay(`${target.url}/quote`, payer, nowSeconds());
    expect(unfunded.status).toBe(402);
    expect(unfunded.receipt).toBeUndefined();

    const funded = await fund(facilitator.url, payer.publicKey, "USDC", FUNDED);
    expect(funded.balance).toBe(FUNDED);
    const settled = facilitator.book.settlements();
    const merchantBefore = facilitator.merchantBalance(MERCHANT, "USDC");

    // A second later than the refused attempt: a new intent (one intent pays once).
    const paid = await pay(`${target.url}/quote`, payer, nowSeconds() + 1);
    expect(paid.status).toBe(200);
    expect(JSON.parse(paid.body)).toMatchObject({ method: "GET" });
    expect(target.served("/quote")).toBe(1);
    expect(paid.receipt).toBeDefined();

    const claim = verifyReceipt(paid.receipt!, await receiptKeyOf(facilitator.url));
    expect(claim).toBeDefined();
    expect(Buffer.from(claim![0]).equals(Buffer.from(payer.publicKey))).toBe(true);
    expect(claim![2]).toBe(MERCHANT);
    expect(claim![3]).toEqual(["USDC", PRICE]);

    expect(facilitator.book.settlements()).toBe(settled + 1);
    expect(facilitator.book.payerBalance(funded.payer, "USDC")).toBe(BigInt(FUNDED - PRICE));
    expect(facilitator.merchantBalance(MERCHANT, "USDC")).toBe(merchantBefore + BigInt(PRICE));
  });

  it("pays a 20 STRK price (a bignum past 64 bits): offer, intent, funding and receipt carry tag 2", async () => {
    const payer = freshPayer();
    const funded = await fund(facilitator.url, payer.publicKey, "STRK", 25n * 10n ** 18n);
    expect(funded.balance).toBe(25n * 10n ** 18n);
    const offer = await fetchOffer(`${target.url}/strk`);
    expect(offer.request.get("amount")).toBe(TWENTY_STRK);
    // The offer's bytes hold the amount as tag 2 over 9 big-endian bytes, exactly as the docs show.
    expect(Buffer.from(offer.bytes).toString("hex")).toContain("616d6f756e74c24901158e460913d00000");
    const merchantBefore = facilitator.merchantBalance(MERCHANT, "STRK");

    const paid = await pay(`${target.url}/strk`, payer, Math.floor(Date.now() / 1000));
    expect(paid.status, paid.body).toBe(200);
    expect(target.served("/strk")).toBe(1);
    const claim = verifyReceipt(paid.receipt!, await receiptKeyOf(facilitator.url));
    expect(claim![3]).toEqual(["STRK", TWENTY_STRK]);
    expect(facilitator.book.payerBalance(funded.payer, "STRK")).toBe(5n * 10n ** 18n);
    expect(facilitator.merchantBalance(MERCHANT, "STRK")).toBe(merchantBefore + TWENTY_STRK);
  });

  it("a receipt under another key, or with one salt changed, does not verify", async () => {
    const payer = freshPayer();
    await fund(facilitator.url, payer.publicKey, "USDC", FUNDED);
    const paid = await pay(`${target.url}/quote`, payer, Math.floor(Date.now() / 1000));
    expect(paid.status).toBe(200);
    const key = await receiptKeyOf(facilitator.url);
    expect(verifyReceipt(paid.receipt!, key)).toBeDefined();
    expect(verifyReceipt(paid.receipt!, freshPayer().publicKey)).toBeUndefined();
    const tampered = Uint8Array.from(paid.receipt!);
    const salt = Buffer.from(tampered).indexOf(Buffer.from("salts"));
    tampered[salt + 8] = tampered[salt + 8]! ^ 1; // inside the first salt: past the key, the array head and the bstr head
    expect(verifyReceipt(tampered, key)).toBeUndefined();
  });
});

describe("the independent client pays routes with revelation masks (adds @hpke/core)", () => {
  it.each(["/sealed", "/committed"])(
    "%s: pays with the hidden parts, the books move once, and only the payer opens the receipt's subject",
    async (path) => {
      const payer = freshPayer();
      const funded = await fund(facilitator.url, payer.publicKey, "USDC", FUNDED);
      const merchantBefore = facilitator.merchantBalance(MERCHANT, "USDC");
      const paid = await payMasked(
        `${target.url}${path}`,
        payer,
        Math.floor(Date.now() / 1000),
        facilitator.url,
      );
      expect(paid.status, paid.error ?? "").toBe(200);
      expect(paid.receiptHidesSubject).toBe(true);
      expect(paid.openedSubject).toEqual(payer.publicKey);
      expect(target.served(path)).toBe(1);
      expect(facilitator.book.payerBalance(funded.payer, "USDC")).toBe(BigInt(FUNDED - PRICE));
      expect(facilitator.merchantBalance(MERCHANT, "USDC")).toBe(merchantBefore + BigInt(PRICE));
    },
  );
});

/** Every module specifier in a TypeScript source: static and dynamic imports, re-exports. */
function importSpecifiers(source: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g;
  return [...source.matchAll(pattern)].map((match) => match[1]!);
}

/** Whether a specifier written in `fromFile` resolves into `src/`. */
function reachesSrc(specifier: string, fromFile: string): boolean {
  if (!specifier.startsWith(".") && !specifier.startsWith("/")) return false;
  const target = resolve(dirname(fromFile), specifier);
  return target === srcDir || target.startsWith(srcDir + "/");
}

describe("the independent client imports nothing from src/", () => {
  const sample = join(clientDir, "client.ts");
  it.each([
    [`import { x } from "../../../src/protocol/cbor/encodeCanonical.js";`, true],
    [`export * from "../../../src/index.js";`, true],
    [`const m = await import("../../../src");`, true],
    [`import "../../../src/dev/demo.js";`, true],
    [`import { decode } from "cborg";`, false],
    [`import { ed25519 } from "@noble/curves/ed25519";`, false],
    [`import { helper } from "./helper.js";`, false],
    [`import { y } from "../../support/srcLike.js";`, false],
  ])("%s → into src: %s", (line, expected) => {
    const specifiers = importSpecifiers(line);
    expect(specifiers).toHaveLength(1);
    expect(reachesSrc(specifiers[0]!, sample)).toBe(expected);
  });

  it("no file of the client has an import that resolves into src/", () => {
    const files = readdirSync(clientDir).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const path = join(clientDir, name);
      const specifiers = importSpecifiers(readFileSync(path, "utf8"));
      expect(specifiers.length).toBeGreaterThan(0);
      expect(specifiers.filter((specifier) => reachesSrc(specifier, path))).toEqual([]);
    }
  });
});
