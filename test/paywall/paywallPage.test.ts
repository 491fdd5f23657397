import { createHash } from "node:crypto";
import type { RequestListener } from "node:http";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../src/gateway/createGateway.js";
import type { X402Options } from "../../src/index.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO, usdcRequirements } from "../support/payments.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { startUpstream } from "../gateway/support/startUpstream.js";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const CUSTOM = "<!doctype html><title>my own page</title><script src=/mine.js></script>";

let facilitator: FacilitatorDouble;
let upstream: Awaited<ReturnType<typeof startUpstream>>;
beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
});
afterAll(async () => {
  await facilitator?.close();
  await upstream?.stop();
});

const routes = {
  "GET /report": { price: "$0.01", description: "Today's <report>" },
  "POST /report": { price: "$0.01" },
  "GET /custom": { price: "$0.01", customPaywallHtml: CUSTOM },
};
const options = (extra: Partial<X402Options> = {}): X402Options => ({
  facilitator: { url: facilitator.url },
  payTo: PAY_TO,
  network: "eip155:84532",
  routes,
  ...extra,
});
const ok = (_req: unknown, res: Parameters<typeof sendJson>[0]) => sendJson(res, 200, { ok: true });
const handlers = { "GET /report": ok, "POST /report": ok, "GET /custom": ok };

/** `x402()`, `x402Node()` and the gateway: the page is one answer of the shared core, the same in each. */
const SERVERS: Array<{ name: string; app: (extra?: Partial<X402Options>) => RequestListener }> = [
  ...PAYWALL_ADAPTERS.map((adapter) => ({
    name: adapter.name,
    app: (extra?: Partial<X402Options>) => adapter.app(options(extra), handlers),
  })),
  {
    name: "gateway",
    app: (extra: Partial<X402Options> = {}) =>
      createGateway(
        gatewayConfig({
          upstreamUrl: upstream.url,
          facilitatorUrl: facilitator.url,
          routes,
          ...(extra as object),
        }),
      ).app,
  },
];

describe.each(SERVERS)("the paywall page under $name", ({ app: makeApp }) => {
  let app: RequestListener;
  beforeAll(() => {
    app = makeApp();
  });

  it("a browser gets 402 HTML with the same PAYMENT-REQUIRED an API client gets, under a strict CSP", async () => {
    const page = await request(app).get("/report").set("Accept", BROWSER);
    const api = await request(app).get("/report").set("Accept", "application/json");
    expect(page.status).toBe(402);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    // supertest listens on a new port per request: the offers differ only in the resource URL's port.
    const withoutPort = (value: unknown) =>
      JSON.stringify(decodeBase64Json(String(value))).replace(/127\.0\.0\.1:\d+/g, "HOST");
    expect(withoutPort(page.headers["payment-required"])).toBe(withoutPort(api.headers["payment-required"]));
    expect(decodeBase64Json(page.headers["payment-required"] as string)).toMatchObject({
      x402Version: 2,
      error: "payment_required",
      accepts: [expect.objectContaining({ amount: "10000", network: "eip155:84532", scheme: "exact" })],
    });
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.headers.vary).toMatch(/\bAccept\b/);
    expect(page.text).toContain("Today&#39;s &lt;report&gt;");
    expect(page.text).toContain("0.01 USDC");
    expect(page.text).toContain("Base Sepolia");
    expect(api.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("the CSP allows exactly the page's own script and style, by hash, and loads nothing else", async () => {
    const page = await request(app).get("/report").set("Accept", BROWSER);
    const policy = page.headers["content-security-policy"] as string;
    const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(page.text)?.[1] as string;
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)?.[1] as string;
    expect(policy).toContain(`script-src ${hash(script)};`);
    expect(policy).toContain(`style-src ${hash(style)};`);
    expect(policy).toMatch(/^default-src 'none';/);
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(page.text).not.toMatch(/<script[^>]+src=|<link|https?:\/\/(?!127\.0\.0\.1)/);
  });

  it("HEAD gets the page's headers; POST, a payment, or an API Accept never the page", async () => {
    const head = await request(app).head("/report").set("Accept", BROWSER);
    expect(head.status).toBe(402);
    expect(head.headers["content-type"]).toMatch(/^text\/html/);
    const post = await request(app).post("/report").set("Accept", BROWSER);
    expect(post.status).toBe(402);
    expect(post.headers["content-type"]).toMatch(/^application\/json/);
    const paying = await request(app)
      .get("/report")
      .set("Accept", BROWSER)
      .set("PAYMENT-SIGNATURE", header(evmPayment(usdcRequirements("999"))));
    expect(paying.headers["content-type"]).toMatch(/^application\/json/);
    expect(paying.body).toMatchObject({ error: "payment_mismatch" });
    for (const accept of ["*/*", "application/json, text/html", "text/html;q=0.5, application/json"]) {
      const api = await request(app).get("/report").set("Accept", accept);
      expect(api.headers["content-type"]).toMatch(/^application\/json/);
    }
  });

  it("a route's customPaywallHtml is served as is, with paywall.contentSecurityPolicy when set", async () => {
    const custom = await request(app).get("/custom").set("Accept", BROWSER);
    expect(custom.status).toBe(402);
    expect(custom.text).toBe(CUSTOM);
    expect(custom.headers["payment-required"]).toBeTruthy();
    expect(custom.headers["content-security-policy"] ?? "").not.toContain("sha256");
    const withPolicy = makeApp({ paywall: { contentSecurityPolicy: "script-src 'self'" } });
    const answer = await request(withPolicy).get("/custom").set("Accept", BROWSER);
    expect(answer.headers["content-security-policy"]).toBe("script-src 'self'");
  });

  it("paywall.enabled false: a browser gets the JSON 402", async () => {
    const off = makeApp({ paywall: { enabled: false } });
    const answer = await request(off).get("/report").set("Accept", BROWSER);
    expect(answer.status).toBe(402);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({ error: "payment_required" });
  });
});

describe.each(PAYWALL_ADAPTERS)("a paywallProvider under $name", (adapter) => {
  it("renders every page but a route's own customPaywallHtml, given the offer and the app name", async () => {
    const seen: unknown[] = [];
    const app = adapter.app(
      options({
        paywall: { appName: "Acme" },
        paywallProvider: {
          generateHtml: (paymentRequired, config) => {
            seen.push({ paymentRequired, config });
            return "<p>provided</p>";
          },
        },
      }),
      handlers,
    );
    const provided = await request(app).get("/report").set("Accept", BROWSER);
    expect(provided.status).toBe(402);
    expect(provided.text).toBe("<p>provided</p>");
    expect(seen).toMatchObject([
      {
        paymentRequired: {
          x402Version: 2,
          error: "payment_required",
          resource: { description: "Today's <report>" },
        },
        config: { appName: "Acme", currentUrl: expect.stringMatching(/\/report$/) },
      },
    ]);
    expect((await request(app).get("/custom").set("Accept", BROWSER)).text).toBe(CUSTOM);
  });

  it("refuses a paywallProvider without generateHtml and unknown paywall keys", async () => {
    // (Fastify registers a plugin at `ready`: refused there.)
    const setUp = (given: Parameters<typeof options>[0]) =>
      (async () => adapter.paywall(options(given)).ready?.())();
    await expect(setUp({ paywallProvider: {} as never })).rejects.toThrow(/generateHtml/);
    await expect(setUp({ paywall: { theme: "dark" } as never })).rejects.toThrow(/theme/);
  });
});

describe.each(SERVERS)("a Solana option on the paywall page under $name", ({ app: makeApp }) => {
  const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  const FEE_PAYER = "FeePayer1111111111111111111111111111111111";
  const SOL_PAY_TO = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
  const solanaRoutes = {
    "GET /sol": { network: DEVNET, payTo: SOL_PAY_TO, price: "$0.01", description: "Solana only" },
  };
  beforeAll(() => {
    facilitator.kinds.push({
      x402Version: 2,
      scheme: "exact",
      network: DEVNET,
      extra: { feePayer: FEE_PAYER },
    } as never);
  });
  afterAll(() => {
    facilitator.kinds = facilitator.kinds.filter((kind) => kind.network !== DEVNET);
  });
  const pageData = (html: string) =>
    JSON.parse(
      /<script type="application\/json" id="x402-offer">([\s\S]*?)<\/script>/.exec(html)?.[1] as string,
    ) as {
      index: number;
      network: string;
      solana?: {
        index: number;
        chain: string;
        rpcUrl: string;
        network: string;
        decimals: number;
        symbol: string;
      };
    };

  it("names the public devnet RPC by default, and its origin alone joins connect-src", async () => {
    const page = await request(makeApp({ routes: solanaRoutes } as Partial<X402Options>))
      .get("/sol")
      .set("Accept", BROWSER);
    expect(page.status).toBe(402);
    expect(page.text).toContain("0.01 USDC");
    expect(page.text).toContain("Solana devnet");
    expect(pageData(page.text)).toMatchObject({
      index: -1,
      solana: {
        index: 0,
        chain: "solana:devnet",
        rpcUrl: "https://api.devnet.solana.com",
        decimals: 6,
        symbol: "USDC",
      },
    });
    expect(page.headers["content-security-policy"]).toContain(
      "connect-src 'self' https://api.devnet.solana.com;",
    );
  });

  it("paywall.solanaRpcUrls names the page's RPC (its origin in connect-src, not its path)", async () => {
    const rpcUrl = "https://rpc.example.com:8443/public/path";
    const page = await request(
      makeApp({
        routes: solanaRoutes,
        paywall: { solanaRpcUrls: { [DEVNET]: rpcUrl } },
      } as Partial<X402Options>),
    )
      .get("/sol")
      .set("Accept", BROWSER);
    expect(pageData(page.text).solana?.rpcUrl).toBe(rpcUrl);
    expect(page.headers["content-security-policy"]).toContain(
      "connect-src 'self' https://rpc.example.com:8443;",
    );
  });

  it("an EVM-only route keeps connect-src 'self' alone and has no Solana facts", async () => {
    const page = await request(makeApp()).get("/report").set("Accept", BROWSER);
    expect(pageData(page.text).solana).toBeUndefined();
    expect(page.headers["content-security-policy"]).toContain("connect-src 'self';");
  });
});
