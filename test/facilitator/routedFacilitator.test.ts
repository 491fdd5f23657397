import express from "express";
import fc from "fast-check";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { x402, type X402Options } from "../../src/adapters/express.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { networkMatches } from "../../src/facilitator/RoutedFacilitator.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO, usdcRequirements } from "../support/payments.js";
import { closedPort, startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";

/**
 * Several facilitators (#34 item 2): routed by network and scheme; /verify fails over when one cannot
 * answer, /settle only when it was never reached; an option no facilitator serves is refused at start-up.
 */
let sepolia: FacilitatorDouble;
let spare: FacilitatorDouble;
let base: FacilitatorDouble;
let unreachable: string;

beforeAll(async () => {
  [sepolia, spare, base] = await Promise.all([
    startFacilitatorDouble(),
    startFacilitatorDouble(),
    startFacilitatorDouble(),
  ]);
  unreachable = `http://127.0.0.1:${await closedPort()}`;
});

afterEach(() => {
  for (const double of [sepolia, spare, base]) {
    double.mode = "normal";
    double.endpointModes = {};
    double.calls.length = 0;
  }
});

afterAll(() => Promise.all([sepolia, spare, base].map((double) => double.close())));

const ROUTES: X402Options["routes"] = {
  "GET /sepolia": { price: "$0.001" },
  "GET /base": {
    accepts: [{ scheme: "exact", price: "$0.001", network: "eip155:8453", payTo: PAY_TO }],
  },
};

function app(facilitator: X402Options["facilitator"]) {
  const served = express();
  served.use(x402({ facilitator, payTo: PAY_TO, network: "eip155:84532", routes: ROUTES }));
  served.get(["/sepolia", "/base"], (_req, res) => void res.json({ ok: true }));
  return served;
}

async function pay(served: express.Express, path: string) {
  const offer = await request(served).get(path);
  expect(offer.status).toBe(402);
  const required = decodeBase64Json(offer.headers["payment-required"] as string) as {
    accepts: Array<Parameters<typeof evmPayment>[0]>;
  };
  return request(served)
    .get(path)
    .set("PAYMENT-SIGNATURE", header(evmPayment(required.accepts[0]!)));
}

/** The payment calls a facilitator got (the middleware's own /supported read left aside). */
const calls = (double: FacilitatorDouble) =>
  double.calls
    .map((call) => call.endpoint)
    .filter((endpoint) => endpoint !== "supported")
    .join(",");

describe("several facilitators in x402()", () => {
  it("routes each payment to the facilitator of its network", async () => {
    const served = app([
      { url: sepolia.url, networks: ["eip155:84532"] },
      { url: base.url, networks: ["eip155:8453"], schemes: ["exact"] },
    ]);
    expect((await pay(served, "/sepolia")).status).toBe(200);
    expect((await pay(served, "/base")).status).toBe(200);
    expect(calls(sepolia)).toBe("verify,settle");
    expect(calls(base)).toBe("verify,settle");
    const baseSettle = base.calls.find((call) => call.endpoint === "settle")!.body as {
      paymentRequirements: { network: string; asset: string };
    };
    expect(baseSettle.paymentRequirements).toMatchObject({ network: "eip155:8453" });
  });

  it("a facilitator that cannot be reached: /verify and /settle go to the next one serving the network, which settles once", async () => {
    const served = app([{ url: unreachable }, { url: spare.url, networks: ["eip155:*"] }]);
    const paid = await pay(served, "/sepolia");
    expect(paid.status).toBe(200);
    expect(calls(spare)).toBe("verify,settle");
  });

  it("/verify answered 5xx fails over to the next facilitator, which verifies and then settles it", async () => {
    sepolia.endpointModes = { verify: "http500" };
    const paid = await pay(app([{ url: sepolia.url }, { url: spare.url }]), "/sepolia");
    expect(paid.status).toBe(200);
    expect(calls(sepolia)).toBe("verify");
    expect(calls(spare)).toBe("verify,settle");
  });

  it.each(["http500", "hang", "malformed"] as const)(
    "a /settle that may have been processed (%s) never goes to another facilitator: one settle call in all, 503",
    async (mode) => {
      sepolia.endpointModes = { settle: mode };
      const served = app([{ url: sepolia.url, settleTimeoutMs: 300 }, { url: spare.url }]);
      const paid = await pay(served, "/sepolia");
      expect(paid.status).toBe(503);
      expect(calls(sepolia)).toBe("verify,settle");
      expect(spare.count("settle")).toBe(0);
    },
  );

  it("an option no facilitator in the list serves is refused at start-up, naming the route", () => {
    expect(() => app([{ url: sepolia.url, networks: ["eip155:84532"] }])).toThrow(
      /GET \/base: exact on eip155:8453/,
    );
    expect(() => app([{ url: sepolia.url, schemes: ["upto"] }])).toThrow(/no facilitator in the list serves/);
  });

  it("/supported: every facilitator's kinds, each within what it is routed; one that cannot answer is left out", async () => {
    sepolia.kinds = [
      { x402Version: 2, scheme: "exact", network: "eip155:84532" },
      { x402Version: 2, scheme: "exact", network: "eip155:8453" },
    ];
    base.kinds = [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }];
    const paywall = x402({
      facilitator: [
        { url: sepolia.url, networks: ["eip155:84532"] },
        { url: unreachable, networks: ["eip155:8453"] },
        { url: base.url, networks: ["eip155:8453"] },
      ],
      payTo: PAY_TO,
      network: "eip155:84532",
      routes: ROUTES,
    });
    const report = await paywall.checkSupport();
    expect(report).toMatchObject({ ok: true, unsupported: [] });
  });

  it("networkMatches: a pattern `ns:*` is every network of that namespace and nothing else (property)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]{3,8}$/),
        fc.stringMatching(/^[a-z0-9]{3,8}$/),
        fc.stringMatching(/^[a-zA-Z0-9]{1,32}$/),
        (namespace, other, reference) => {
          expect(networkMatches([`${namespace}:*`], `${namespace}:${reference}`)).toBe(true);
          expect(networkMatches([`${namespace}:${reference}`], `${namespace}:${reference}`)).toBe(true);
          if (other !== namespace) {
            expect(networkMatches([`${other}:*`], `${namespace}:${reference}`)).toBe(false);
            expect(networkMatches([`${namespace}:*`], `${namespace}${other}:${reference}`)).toBe(false);
          }
        },
      ),
    );
    expect(networkMatches(undefined, "eip155:1")).toBe(true);
  });
});

describe("several facilitators in the gateway's YAML", () => {
  let upstream: TestUpstream;
  const running: RunningGateway[] = [];
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await Promise.all(running.map((gateway) => gateway.close()));
    await upstream.stop();
  });

  const yaml = (first: string) => `
listen: { host: 127.0.0.1, port: 0 }
facilitator:
  - { url: "${first}", networks: ["eip155:84532"] }
  - { url: "${spare.url}", networks: ["eip155:*"], schemes: [exact] }
payTo: "${PAY_TO}"
network: eip155:84532
upstreams: [{ url: "${upstream.url}" }]
routes:
  GET /priced: { price: $0.01 }
logging: { level: silent }
`;

  it("pays through the second when the first cannot be reached, and /readyz stays ready", async () => {
    const config = parseConfig(yaml(unreachable), { file: "gateway.yaml", env: {} });
    const gateway = await createGateway(config, { logger: createGatewayLogger("silent") }).listen();
    running.push(gateway);
    const offer = await fetch(`${gateway.url}/priced`);
    expect(offer.status).toBe(402);
    const paid = await fetch(`${gateway.url}/priced`, {
      headers: { "PAYMENT-SIGNATURE": header(evmPayment(usdcRequirements("10000"))) },
    });
    expect(paid.status).toBe(200);
    expect(calls(spare)).toBe("verify,settle");
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { checks: Array<{ name: string; ok: boolean }> };
    expect(body.checks.filter((check) => check.name.startsWith("facilitator"))).toEqual([
      expect.objectContaining({ name: `facilitator ${unreachable}`, ok: false }),
      expect.objectContaining({ name: `facilitator ${spare.url}`, ok: true }),
    ]);
  });

  it("check-config names the key of a bad list entry", () => {
    expect(() =>
      parseConfig(yaml(unreachable).replace('networks: ["eip155:84532"]', 'networks: ["base"]'), {
        file: "gateway.yaml",
        env: {},
      }),
    ).toThrow(/facilitator\[0\]\.networks\[0\]: expected a CAIP-2 network/);
  });
});
