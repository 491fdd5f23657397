import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import type { PaymentLedger } from "../../src/ledger/PaymentLedger.js";
import { MemoryPaymentLedger } from "../../src/ledger/MemoryPaymentLedger.js";
import { x402, type ErrorEvent, type X402Options } from "../../src/index.js";
import { issueGrant } from "../../src/protocol/cbor/issueGrant.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { X402OptionsError } from "../../src/paywall/setup/X402OptionsError.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import { fetchCborOffer, postCborPayment, signedIntent } from "../support/cborClient.js";

const MERCHANT = "merchant:settings";
const root = createSigningKey("ed25519");
const agent = createSigningKey("ed25519");
let facilitator: RunningCborFacilitator;
/** Each intent its own second: the same agent answering the same offer twice must not sign the same intent. */
let tick = 0;

beforeAll(async () => {
  facilitator = await startCborFacilitator({
    accounts: [{ publicKey: root.publicKey, balances: { USDC: 1_000_000n } }],
  });
});
afterAll(async () => facilitator?.stop());

function options(extra: Partial<X402Options> = {}): X402Options {
  return {
    facilitator: { url: "http://127.0.0.1:9" },
    payTo: "0x0000000000000000000000000000000000000001",
    network: "eip155:84532",
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
    routes: { "GET /paid": { cbor: { currency: "USDC", amount: "1000" } } },
    ...extra,
  };
}

/** A ledger of someone else's making: reserve/release/spend, no grant accounting. */
function ledgerWithoutGrants(): PaymentLedger {
  const inner = new MemoryPaymentLedger();
  return {
    reserve: (id, o) => inner.reserve(id, o),
    release: (id, token) => inner.release(id, token),
    spend: (id, token, o) => inner.spend(id, token, o),
  };
}

const grant = (validUntil = Math.floor(Date.now() / 1000) + 3600) =>
  issueGrant(root, {
    delegate: agent.publicKey,
    scope: { kind: "any" },
    cap: { currency: "USDC", amount: 10_000n },
    validUntil,
  });

describe("cbor.delegation settings", () => {
  it("a custom ledger without chargeGrants is refused at start-up unless delegation is off", () => {
    expect(() => x402(options({ ledger: ledgerWithoutGrants() }))).toThrow(X402OptionsError);
    expect(() => x402(options({ ledger: ledgerWithoutGrants() }))).toThrow(/cbor\.delegation: false/);
    expect(() =>
      x402(
        options({
          ledger: ledgerWithoutGrants(),
          cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url }, delegation: false },
        }),
      ),
    ).not.toThrow();
  });

  it("refuses out-of-range limits", () => {
    for (const delegation of [{ maxChainLength: 0 }, { maxChainBytes: 10 }, { maxChainLength: 2.5 }]) {
      expect(
        () => x402(options({ cbor: { merchantPseudonym: MERCHANT, delegation } })),
        JSON.stringify(delegation),
      ).toThrow(X402OptionsError);
    }
  });

  describe.each(PAYWALL_ADAPTERS)("through $name", (adapter) => {
    let server: LoopbackServer;
    let off: LoopbackServer;
    const errors: ErrorEvent[] = [];
    let served = 0;
    const handlers = {
      "GET /paid": (_req: unknown, res: Parameters<typeof sendJson>[0]) => {
        served++;
        sendJson(res, 200, { ok: true });
      },
    };
    beforeAll(async () => {
      const onError = (event: ErrorEvent) => errors.push(event);
      server = await listenOnLoopback(
        adapter.app(
          options({
            onError,
            cbor: {
              merchantPseudonym: MERCHANT,
              facilitator: { url: facilitator.url },
              delegation: { maxChainLength: 1 },
            },
          }),
          handlers,
        ),
      );
      off = await listenOnLoopback(
        adapter.app(
          options({
            onError,
            cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url }, delegation: false },
          }),
          handlers,
        ),
      );
    });
    afterAll(async () => {
      await server?.close();
      await off?.close();
    });

    it("names the problem in details; `false` refuses every chain; maxChainLength is applied; nothing is settled", async () => {
      const pay = async (url: string, chain: Uint8Array[]) => {
        const { offer } = await fetchCborOffer(`${url}/paid`);
        const response = await postCborPayment(
          `${url}/paid`,
          signedIntent(
            offer,
            agent,
            {},
            { time: Math.floor(Date.now() / 1000) - tick++, delegationChain: chain },
          ),
        );
        await response.arrayBuffer();
        const details = errors.at(-1)?.error as { details?: Record<string, unknown> } | undefined;
        return {
          status: response.status,
          code: response.headers.get("x402-error"),
          details: details?.details,
        };
      };
      const before = [facilitator.calls.verify, facilitator.calls.settle, served];
      expect(await pay(off.url, [grant()])).toMatchObject({
        status: 402,
        code: "delegation_invalid",
        details: { problem: "not_accepted" },
      });
      const second = issueGrant(agent, {
        delegate: createSigningKey("ed25519").publicKey,
        scope: { kind: "any" },
        cap: { currency: "USDC", amount: 1n },
        validUntil: 1,
      });
      expect(await pay(server.url, [grant(), second])).toMatchObject({
        status: 402,
        code: "delegation_invalid",
        details: { problem: "too_long" },
      });
      expect(await pay(server.url, [grant(1)])).toMatchObject({
        status: 402,
        code: "delegation_expired",
        details: { link: 0 },
      });
      expect([facilitator.calls.verify, facilitator.calls.settle, served]).toEqual(before);
      expect(await pay(server.url, [grant()])).toMatchObject({ status: 200 });
      expect(served).toBe((before[2] as number) + 1);
    });
  });
});
