import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PaidEvent } from "../../src/paywall/setup/options.js";
import { buildRouteTable } from "../../src/pricing/buildRouteTable.js";
import {
  payerFelt,
  recordingOf,
  recordingTargets,
  recordPaidPayers,
  type Recording,
  type RecordingTarget,
} from "../../src/paywall/flow/recordingTargets.js";

const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const ASSET = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const PAYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const RPC = "http://127.0.0.1:5050";

const table = buildRouteTable({
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  network: "eip155:31337",
  assets: [{ network: "eip155:31337", address: ASSET, decimals: 6, name: "USDC", version: "2" }],
  cbor: { merchantPseudonym: "merchant:demo", deadlineSeconds: 300 },
  routes: {
    "GET /a": {
      price: { amount: "1000", asset: ASSET },
      cbor: { currency: "USDC", amount: "1000" },
      recognition: { rpcUrl: RPC, contract: "0x0AA" },
    },
    "GET /b": { price: { amount: "5000", asset: ASSET }, recognition: { rpcUrl: RPC, contract: "0xbb" } },
    "GET /off": { price: { amount: "1000", asset: ASSET }, recognition: false },
    "GET /default": { price: { amount: "1000", asset: ASSET } },
  },
});
const DEFAULT = { rpcUrl: RPC, contract: "0xdd" };
const targets = recordingTargets(table.routes, (route) => route.config.recognition ?? DEFAULT);
const byRoute = new Map<string, RecordingTarget>(targets.map((target) => [target.route, target]));

const paid = (overrides: Partial<PaidEvent> = {}): PaidEvent => ({
  payer: PAYER,
  amount: "1000",
  asset: ASSET,
  network: "eip155:31337",
  payTo: PAY_TO,
  route: "GET /a",
  transaction: `0x${"ab".repeat(32)}`,
  ...overrides,
});

describe("recordingTargets", () => {
  it("one target per recognized route, in its own contract, with each way of paying it", () => {
    expect(targets.map((target) => [target.route, target.contract])).toEqual([
      ["GET /a", "0xaa"],
      ["GET /b", "0xbb"],
      ["GET /default", "0xdd"],
    ]);
    expect(byRoute.get("GET /a")!.terms).toEqual([
      { network: "eip155:31337", asset: ASSET, payTo: PAY_TO, amount: 1000n },
      { network: "x402+cbor", asset: "USDC", payTo: "merchant:demo", amount: 1000n },
    ]);
  });
});

describe("recordingOf: only a payment of the route, to this merchant, of at least its price", () => {
  it.each<[string, Partial<PaidEvent>, string]>([
    ["a route without recognition", { route: "GET /off" }, "route_not_recognized"],
    ["an unpriced route", { route: "GET /nope" }, "route_not_recognized"],
    ["another payee", { payTo: PAYER }, "not_this_merchant"],
    ["another asset", { asset: PAY_TO }, "not_this_merchant"],
    ["another network", { network: "eip155:1" }, "not_this_merchant"],
    [
      "a CBOR payment to another merchant",
      { network: "x402+cbor", asset: "USDC", payTo: "m:x" },
      "not_this_merchant",
    ],
    [
      "a CBOR payment in another currency",
      { network: "x402+cbor", asset: "STRK", payTo: "merchant:demo" },
      "not_this_merchant",
    ],
    ["less than the price", { amount: "999" }, "below_price"],
    ["zero", { amount: "0" }, "below_price"],
    ["route B's payment below B's price", { route: "GET /b", amount: "1000" }, "below_price"],
    ["an amount that is not digits", { amount: "1e9" }, "below_price"],
    ["a bare Ed25519 key (no address)", { payer: `ed25519:${"a".repeat(64)}` }, "payer_has_no_address"],
    ["a masked payer", { payer: `masked:${"b".repeat(64)}` }, "payer_has_no_address"],
    ["a Stark key without an account", { payer: `starknet-key:0x${"c".repeat(64)}` }, "payer_has_no_address"],
  ])("records nothing for %s", (_name, overrides, reason) => {
    expect(recordingOf(byRoute, paid(overrides))).toBe(reason);
  });

  it("records the payer in the route's contract: an EVM address, an EVM-signed or a Starknet-signed CBOR intent", () => {
    expect(recordingOf(byRoute, paid())).toEqual({
      route: "GET /a",
      contract: "0xaa",
      rpcUrl: RPC,
      payer: PAYER.toLowerCase(),
      transaction: `0x${"ab".repeat(32)}`,
    });
    expect(recordingOf(byRoute, paid({ amount: "1001", payTo: PAY_TO.toLowerCase() }))).toMatchObject({
      payer: PAYER.toLowerCase(),
    });
    const cbor = { network: "x402+cbor", asset: "USDC", payTo: "merchant:demo" };
    expect(recordingOf(byRoute, paid({ ...cbor, payer: `evm:${PAYER.toLowerCase()}` }))).toMatchObject({
      contract: "0xaa",
      payer: PAYER.toLowerCase(),
    });
    const account = `0x0${"4a1".repeat(21)}`;
    expect(recordingOf(byRoute, paid({ ...cbor, payer: `starknet-account:${account}` }))).toMatchObject({
      payer: `0x${"4a1".repeat(21)}`,
    });
    expect(recordingOf(byRoute, paid({ route: "GET /b", amount: "5000" }))).toMatchObject({
      contract: "0xbb",
    });
  });

  it("the hook writes only what qualifies, and a failing write is logged, never thrown", () => {
    const written: Recording[] = [];
    const lines: string[] = [];
    const hook = recordPaidPayers({
      targets,
      write: (recording) => {
        if (recording.route === "GET /b") throw new Error("node down");
        written.push(recording);
      },
      log: (line) => lines.push(line),
    });
    hook(paid({ amount: "1" }));
    hook(paid());
    hook(paid({ route: "GET /b", amount: "5000" }));
    hook(paid({ route: "GET /off" }));
    expect(written.map((recording) => recording.route)).toEqual(["GET /a"]);
    expect(lines).toEqual([
      `recognition: ${PAYER} on GET /a not recorded (below_price)`,
      `recognition: recording ${PAYER.toLowerCase()} failed: node down`,
    ]);
  });
});

describe("payerFelt", () => {
  it.each([
    ["", undefined],
    ["0x", undefined],
    ["0x1234", undefined],
    [`${PAYER}0`, undefined],
    ["evm:", undefined],
    ["evm:0x1234", undefined],
    [`evm:${PAYER}:x`, undefined],
    ["starknet-account:", undefined],
    ["starknet-account:0x", undefined],
    [`starknet-account:0x${"f".repeat(64)}`, undefined], // past the field prime
    [`starknet-account:0x${"1".repeat(65)}`, undefined],
    ["starknet-account:4a1", undefined],
    [`utxo:${PAYER}`, undefined],
    [PAYER, PAYER.toLowerCase()],
    [`evm:${PAYER}`, PAYER.toLowerCase()],
    ["starknet-account:0x00004a1", "0x4a1"],
  ])("%j → %s", (payer, felt) => {
    expect(payerFelt(payer)).toBe(felt);
  });

  it("never throws, and answers only felts", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .constantFrom("evm:", "starknet-account:")
            .chain((kind) => fc.string().map((rest) => kind + rest)),
        ),
        (payer) => {
          const felt = payerFelt(payer);
          if (felt !== undefined) expect(felt).toMatch(/^0x(0|[1-9a-f][0-9a-f]{0,62})$/);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
