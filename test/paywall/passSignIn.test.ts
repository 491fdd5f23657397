import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAY_TO, evmPayment, header, usdcRequirements } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import { siwxSignIn } from "../support/siwxSignIn.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

/** A payer who bought a pass and then signs in (SIWX) is served on it, without a token. */
// A public anvil dev key: it only signs here.
const payer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;

beforeAll(async () => {
  // The chain recognizes nobody: only the pass can let the payer in.
  rpc = await startStarknetRpcServer({ call: () => ["0x0"] });
  facilitator = await startFacilitatorDouble();
  facilitator.verify = () => ({ isValid: true, payer: payer.address });
});

afterAll(async () => {
  await facilitator.close();
  await rpc.close();
});

describe.each(PAYWALL_ADAPTERS)("a signed-in payer redeems its pass under $name", (adapter) => {
  let server: LoopbackServer;
  let hits = 0;
  beforeAll(async () => {
    server = await listenOnLoopback(
      adapter.app(
        {
          facilitator: { url: facilitator.url },
          payTo: PAY_TO,
          network: "eip155:84532",
          allowedHosts: ["127.0.0.1"],
          passes: { secret: "a-pass-secret-of-at-least-32-characters" },
          routes: {
            "GET /api/report": {
              price: "$0.001",
              pass: { requests: 3 },
              recognition: { rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 1_000 },
            },
          },
        },
        {
          "GET /api/report": (_req, res) => {
            hits += 1;
            sendJson(res, 200, { report: "ok" });
          },
        },
      ),
    );
  });
  afterAll(async () => server?.close());

  async function signedIn(url: string): Promise<Response> {
    const offer = await fetch(url);
    expect(offer.status).toBe(402);
    const { header: signIn } = await siwxSignIn(offer.headers.get("payment-required") as string, payer, url);
    return fetch(url, { headers: { "sign-in-with-x": signIn } });
  }

  it("pays once, then is served twice on sign-in alone, then gets the offer", async () => {
    const url = `${server.url}/api/report`;
    const settles = facilitator.count("settle");
    const before = await signedIn(url);
    expect(before.status).toBe(402); // nothing bought yet
    const bought = await fetch(url, {
      headers: { "payment-signature": header(evmPayment(usdcRequirements("1000"))) },
    });
    expect(bought.status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await signedIn(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("payment-response")).toBeNull();
    }
    const spent = await signedIn(url);
    expect(spent.status).toBe(402);
    expect(facilitator.count("settle")).toBe(settles + 1);
    expect(hits).toBe(3);
  });
});
