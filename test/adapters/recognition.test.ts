import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { createSIWxClientHook } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment } from "@x402/fetch";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAY_TO } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

/**
 * Recognition through every adapter: the official client signs in (SIWX) before paying; a payer the chain
 * knows is served without payment or facilitator, one it does not know gets the offer and pays.
 */
// Public anvil dev keys: they only sign here; nothing reaches a chain.
const recognizedPayer = privateKeyToAccount(
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
);
const newPayer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;

beforeAll(async () => {
  rpc = await startStarknetRpcServer({
    call: ({ calldata }) => [calldata[0] === recognizedPayer.address.toLowerCase() ? "0x1" : "0x0"],
  });
  facilitator = await startFacilitatorDouble();
});

afterAll(async () => {
  await facilitator.close();
  await rpc.close();
});

beforeEach(() => {
  facilitator.calls.length = 0;
});

function officialClient(account: PrivateKeyAccount): typeof fetch {
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  const http = new x402HTTPClient(client).onPaymentRequired(createSIWxClientHook(account));
  return wrapFetchWithPayment(fetch, http);
}

describe.each(PAYWALL_ADAPTERS)("recognition under $name", (adapter) => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await listenOnLoopback(
      adapter.app(
        {
          facilitator: { url: facilitator.url },
          payTo: PAY_TO,
          network: "eip155:84532",
          allowedHosts: ["127.0.0.1"],
          routes: {
            "GET /api/report": {
              price: "$0.001",
              recognition: { rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 1_000 },
            },
          },
        },
        { "GET /api/report": (_req, res) => sendJson(res, 200, { report: "ok" }) },
      ),
    );
  });
  afterAll(async () => server?.close());

  it("a recognized payer is served without payment and without the facilitator", async () => {
    const res = await officialClient(recognizedPayer)(`${server.url}/api/report`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: "ok" });
    expect(res.headers.get("payment-response")).toBeNull();
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([0, 0]);
  });

  it("a payer the chain does not know gets the offer, then pays", async () => {
    const res = await officialClient(newPayer)(`${server.url}/api/report`);
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect([facilitator.count("verify"), facilitator.count("settle")]).toEqual([1, 1]);
  });
});
