import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { startStarknetStandIn, STAND_IN_CHAIN_NAME } from "../../src/dev/startStarknetStandIn.js";
import type { RunningStarknetStandIn } from "../../src/dev/startStarknetStandIn.js";
import { starknetAccountOf } from "../../src/dev/starknetDevAccounts.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { starknetIntentKey } from "../../src/payer/starknetIntentKey.js";
import type { IntentKey } from "../../src/payer/IntentKey.js";
import { CborError } from "../../src/protocol/cbor/CborError.js";
import type { CborValue } from "../../src/protocol/cbor/CborValue.js";
import { decodeCanonical } from "../../src/protocol/cbor/decodeCanonical.js";
import { encodeCanonical } from "../../src/protocol/cbor/encodeCanonical.js";
import { decodeCborFundRequest, encodeCborFundRequest } from "../../src/protocol/cbor/facilitatorMessages.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { startCborTarget, type CborTarget } from "../support/cborTargets.js";

const PRICE = 1_500n;
let node: RunningStarknetStandIn;
let facilitator: RunningCborFacilitator;
let target: CborTarget;

beforeAll(async () => {
  node = await startStarknetStandIn();
  facilitator = await startCborFacilitator({ layerTwo: { chainId: STAND_IN_CHAIN_NAME, rpcUrl: node.url } });
  target = await startCborTarget(
    "x402-gateway serve",
    {
      facilitator: { url: facilitator.url },
      payTo: "0x000000000000000000000000000000000000dEaD",
      network: "eip155:31337",
      cbor: {
        merchantPseudonym: "merchant:fund",
        facilitator: { url: facilitator.url },
        layerTwo: { chainId: STAND_IN_CHAIN_NAME, rpcUrl: node.url },
      },
      routes: { "GET /quote": { cbor: { currency: "USDC", amount: PRICE.toString() } } },
    },
    Date.now,
  );
}, 60_000);
afterAll(async () => {
  await target?.stop();
  await facilitator?.stop();
  await node?.stop();
});

async function fund(body: Uint8Array): Promise<Response> {
  return fetch(`${facilitator.url}/fund`, {
    method: "POST",
    headers: { "content-type": "application/x402+cbor" },
    body,
  });
}

describe("POST /fund (dev only): test units so a fresh key of any backend can pay", () => {
  it("a fresh Ed25519 key and a freshly deployed Starknet account: refused before, paid after, exact balances", async () => {
    const stark = starknetAccountOf("0xf00d");
    node.deployAccount(stark.publicKey);
    const keys: IntentKey[] = [
      createSigningKey("ed25519"),
      await starknetIntentKey({
        privateKey: stark.privateKey,
        account: stark.address,
        chainId: STAND_IN_CHAIN_NAME,
      }),
    ];
    for (const key of keys) {
      const unfunded = await payCborRoute(`${target.url}/quote`, { key });
      expect(unfunded.response.status).toBe(402);
      const answer = await fund(
        encodeCborFundRequest({
          subject: { subject: key.publicKey, signer: key.signer },
          currency: "USDC",
          amount: 10_000n,
        }),
      );
      expect(answer.status).toBe(200);
      const funded = decodeCanonical(new Uint8Array(await answer.arrayBuffer())) as Map<string, CborValue>;
      expect(funded.get("balance")).toBe(10_000);
      const settled = facilitator.book.settlements();
      const paid = await payCborRoute(`${target.url}/quote`, { key });
      expect(paid.response.status).toBe(200);
      expect(facilitator.book.settlements()).toBe(settled + 1);
      expect(facilitator.book.payerBalance(funded.get("payer") as string, "USDC")).toBe(10_000n - PRICE);
    }
  });

  it("more than the test allowance, or a malformed body: 400, nothing credited", async () => {
    const key = createSigningKey("ed25519");
    const bodies = [
      encodeCborFundRequest({ subject: { subject: key.publicKey }, currency: "USDC", amount: 10n ** 12n }),
      encodeCanonical(new Map<string, CborValue>([["subject", key.publicKey]])),
      new Uint8Array([0xff]),
    ];
    for (const body of bodies) expect((await fund(body)).status).toBe(400);
    expect(facilitator.book.payerBalance(`ed25519:${"0".repeat(64)}`, "USDC")).toBeUndefined();
    expect(facilitator.payerBalance(key.publicKey, "USDC")).toBeUndefined();
  });
});

describe("decodeCborFundRequest", () => {
  const key = new Uint8Array(32).fill(3);
  const ok = (entries: Array<[string, CborValue]>) => encodeCanonical(new Map(entries));
  const refused: Array<[string, Uint8Array]> = [
    [
      "no subject",
      ok([
        ["currency", "USDC"],
        ["amount", 1],
      ]),
    ],
    [
      "no currency",
      ok([
        ["subject", key],
        ["amount", 1],
      ]),
    ],
    [
      "no amount",
      ok([
        ["subject", key],
        ["currency", "USDC"],
      ]),
    ],
    [
      "zero units",
      ok([
        ["subject", key],
        ["currency", "USDC"],
        ["amount", 0],
      ]),
    ],
    [
      "a negative amount",
      ok([
        ["subject", key],
        ["currency", "USDC"],
        ["amount", -1],
      ]),
    ],
    [
      "an unknown currency",
      ok([
        ["subject", key],
        ["currency", "usdc"],
        ["amount", 1],
      ]),
    ],
    [
      "an unknown key",
      ok([
        ["subject", key],
        ["currency", "USDC"],
        ["amount", 1],
        ["to", "x"],
      ]),
    ],
    [
      "a subject of an unknown backend",
      ok([
        ["subject", ["nope", key]],
        ["currency", "USDC"],
        ["amount", 1],
      ]),
    ],
    [
      "a subject of a wrong length",
      ok([
        ["subject", new Uint8Array(31)],
        ["currency", "USDC"],
        ["amount", 1],
      ]),
    ],
    ["an array", encodeCanonical([key, "USDC", 1])],
    [
      "truncated",
      ok([
        ["subject", key],
        ["currency", "USDC"],
        ["amount", 1],
      ]).subarray(0, 20),
    ],
  ];
  it.each(refused)("refuses %s with a CborError", (_name, bytes) => {
    expect(() => decodeCborFundRequest(bytes)).toThrow(CborError);
  });

  it("round-trips what it encodes; random bytes decode or throw a CborError", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ minLength: 32, maxLength: 32 }).map((subject) => ({ subject })),
          fc.bigInt({ min: 0n, max: 2n ** 250n }).map((value) => ({
            subject: new Uint8Array(Buffer.from(value.toString(16).padStart(64, "0"), "hex")),
            signer: "starknet-account" as const,
          })),
        ),
        fc.constantFrom("USDC" as const, "STRK" as const, "strkBTC" as const),
        fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }),
        (subject, currency, amount) => {
          const decoded = decodeCborFundRequest(encodeCborFundRequest({ subject, currency, amount }));
          expect(decoded).toEqual({ subject, currency, amount });
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), (bytes) => {
        try {
          decodeCborFundRequest(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(CborError);
        }
      }),
    );
  });
});
