import { networkInterfaces } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { x402, X402OptionsError, type X402Options } from "../../src/index.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback } from "../support/listenOnLoopback.js";
import { PAY_TO } from "../support/payments.js";
import { rawHttp } from "./support/rawHttp.js";

const recognition = { rpcUrl: "http://127.0.0.1:9", contract: "0x0456abc" };
let facilitator: FacilitatorDouble;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});

afterAll(async () => {
  await facilitator.close();
});

const options = (extra: Partial<X402Options>): X402Options => ({
  facilitator: { url: facilitator.url },
  payTo: PAY_TO,
  network: "eip155:84532",
  routes: { "GET /report": { price: "$0.001" } },
  ...extra,
});

type Offer = {
  resource: { url: string };
  extensions?: Record<string, { info: { domain: string; uri: string } }>;
};
const offerOf = (header: string | undefined) => decodeBase64Json(header ?? "") as Offer;

describe("the sign-in domain is the gateway's own, never a client's Host (issue 15, item 8)", () => {
  it("x402() refuses to start with recognition but neither publicUrl nor allowedHosts", () => {
    expect(() => x402(options({ recognition }))).toThrow(X402OptionsError);
    expect(() => x402(options({ recognition }))).toThrow(/publicUrl \(or allowedHosts\)/);
    expect(() => x402(options({ recognition, allowedHosts: ["api.example.com"] }))).not.toThrow();
    expect(() => x402(options({ recognition, publicUrl: "https://api.example.com" }))).not.toThrow();
  });

  it("the gateway's config check refuses it too, naming publicUrl", () => {
    const result = gatewayConfigSchema.safeParse({
      facilitator: { url: "http://127.0.0.1:9" },
      payTo: PAY_TO,
      network: "eip155:84532",
      upstreams: [{ url: "http://127.0.0.1:9" }],
      routes: { "GET /report": { price: "$0.01", recognition } },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ["publicUrl"],
        message: expect.stringContaining("recognition needs publicUrl"),
      }),
    ]);
  });

  it("with allowedHosts, a foreign Host gets the allowed host in the offer and the sign-in challenge", async () => {
    const app = express();
    app.use(x402(options({ recognition, allowedHosts: ["127.0.0.1"] })));
    const server = await listenOnLoopback(app);
    try {
      const phished = await rawHttp(server.url, {
        method: "GET",
        target: "/report",
        headers: { Host: "evil.example" },
      });
      expect(phished.status).toBe(402);
      const offer = offerOf(phished.headers["payment-required"]);
      expect(offer.resource.url).toBe("http://127.0.0.1/report");
      expect(offer.extensions?.["sign-in-with-x"]?.info.domain).toBe("127.0.0.1");
      expect(JSON.stringify(offer)).not.toContain("evil");

      const own = await fetch(`${server.url}/report`);
      expect(
        offerOf(own.headers.get("payment-required") ?? "").extensions?.["sign-in-with-x"]?.info.domain,
      ).toBe(new URL(server.url).host);
    } finally {
      await server.close();
    }
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((address) => address && !address.internal && address.family === "IPv4")?.address;

  it.skipIf(external === undefined)(
    "on a non-loopback listener without publicUrl, offers do not echo the Host",
    async () => {
      const app = express();
      app.use(x402(options({ requireTls: false })));
      const server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, external, resolve));
      const url = `http://${external}:${(server.address() as AddressInfo).port}`;
      try {
        const response = await rawHttp(url, {
          method: "GET",
          target: "/report",
          headers: { Host: "evil.example" },
        });
        expect(response.status).toBe(402);
        expect(offerOf(response.headers["payment-required"]).resource.url).toBe(`${url}/report`);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );
});
