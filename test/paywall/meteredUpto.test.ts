import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import express from "express";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { x402 } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { BASE_SEPOLIA_USDC, PAY_TO } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";

/**
 * Metered routes (`upto`): the official client authorizes at most the price (a Permit2 authorization), the
 * handler reports what it used in a response header, the paywall settles that amount (never more), and
 * nothing when nothing was used. The facilitator here is a double: what reaches its /settle is checked.
 */
// A public anvil dev key: it only signs here.
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");
const FACILITATOR_ADDRESS = "0x1111111111111111111111111111111111111111";

let facilitator: FacilitatorDouble;
beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  facilitator.kinds.push({ x402Version: 2, scheme: "upto", network: "eip155:84532" });
  facilitator.verify = () => ({ isValid: true, payer: account.address });
  facilitator.settle = (body) => ({
    success: true,
    transaction: `0x${"cd".repeat(32)}`,
    network: "eip155:84532",
    payer: account.address,
    amount: (body as { paymentRequirements: { amount: string } }).paymentRequirements.amount,
  });
});
afterAll(() => facilitator.close());

function officialClient(): typeof fetch {
  const client = new x402Client().register("eip155:*", new UptoEvmScheme(account));
  return wrapFetchWithPayment(fetch, new x402HTTPClient(client));
}

describe.each(PAYWALL_ADAPTERS)("metered upto routes under $name", (adapter) => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await listenOnLoopback(
      adapter.app(
        {
          facilitator: { url: facilitator.url },
          payTo: PAY_TO,
          network: "eip155:84532",
          routes: {
            "GET /llm/:used": {
              scheme: "upto",
              price: {
                amount: "50000",
                asset: BASE_SEPOLIA_USDC,
                extra: {
                  name: "USDC",
                  version: "2",
                  assetTransferMethod: "permit2",
                  facilitatorAddress: FACILITATOR_ADDRESS,
                },
              },
              usageHeader: "X-Tokens-Cost",
            },
          },
        },
        {
          "GET /llm/1234": (_req, res) => {
            res.setHeader("X-Tokens-Cost", "1234");
            sendJson(res, 200, { answer: "metered" });
          },
          "GET /llm/0": (_req, res) => sendJson(res, 200, { answer: "nothing used" }),
          "GET /llm/99999": (_req, res) => {
            res.setHeader("X-Tokens-Cost", "99999");
            sendJson(res, 200, { answer: "greedy" });
          },
        },
      ),
    );
  });
  afterAll(() => server?.close());

  const settled = () =>
    facilitator.calls
      .filter((call) => call.endpoint === "settle")
      .map((call) => (call.body as { paymentRequirements: { amount: string } }).paymentRequirements.amount);

  it("offers the maximum, verifies the authorization for it, settles what the handler reported", async () => {
    const before = settled().length;
    const verifies = facilitator.count("verify");
    const res = await officialClient()(`${server.url}/llm/1234`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ answer: "metered" });
    const receipt = decodeBase64Json(res.headers.get("payment-response") as string) as { amount?: string };
    expect(receipt.amount).toBe("1234");
    expect(settled().slice(before)).toEqual(["1234"]);
    const verify = facilitator.calls.filter((call) => call.endpoint === "verify").at(-1)?.body as {
      paymentRequirements: { amount: string; scheme: string };
      paymentPayload: { payload: { permit2Authorization?: { permitted: { amount: string } } } };
    };
    expect(facilitator.count("verify")).toBe(verifies + 1);
    expect(verify.paymentRequirements).toMatchObject({ scheme: "upto", amount: "50000" });
    expect(verify.paymentPayload.payload.permit2Authorization?.permitted.amount).toBe("50000");
  });

  it("nothing used settles nothing, and says so", async () => {
    const before = settled().length;
    const res = await officialClient()(`${server.url}/llm/0`);
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json(res.headers.get("payment-response") as string) as {
      amount?: string;
      transaction: string;
    };
    expect(receipt).toMatchObject({ amount: "0", transaction: "" });
    expect(settled().length).toBe(before);
  });

  it("a report above the authorization settles nothing and serves nothing", async () => {
    const before = settled().length;
    const res = await officialClient()(`${server.url}/llm/99999`);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: "usage_invalid" });
    expect(settled().length).toBe(before);
  });
});

describe("x402() (Express): a handler reports usage on res.locals", () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    const app = express();
    app.use(
      x402({
        facilitator: { url: facilitator.url },
        payTo: PAY_TO,
        network: "eip155:84532",
        routes: {
          "GET /metered": {
            scheme: "upto",
            price: {
              amount: "50000",
              asset: BASE_SEPOLIA_USDC,
              extra: {
                name: "USDC",
                version: "2",
                assetTransferMethod: "permit2",
                facilitatorAddress: FACILITATOR_ADDRESS,
              },
            },
          },
        },
      }),
    );
    app.get("/metered", (_req, res) => {
      res.locals.x402Usage = 4321n;
      res.json({ answer: "metered" });
    });
    server = await listenOnLoopback(app);
  });
  afterAll(() => server?.close());

  it("settles the amount left in res.locals.x402Usage", async () => {
    const before = facilitator.count("settle");
    const res = await officialClient()(`${server.url}/metered`);
    expect(res.status).toBe(200);
    expect(
      (decodeBase64Json(res.headers.get("payment-response") as string) as { amount: string }).amount,
    ).toBe("4321");
    expect(facilitator.count("settle")).toBe(before + 1);
  });
});
