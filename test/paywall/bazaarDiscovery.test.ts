import type { RequestListener } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import express from "express";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  extractDiscoveryInfo,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import { wrapFetchWithPayment } from "@x402/fetch";
import { x402, type X402Options } from "../../src/index.js";
import { catalogue } from "../support/bazaarCatalogue.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAYWALL_ADAPTERS, sendJson } from "../support/paywallAdapters.js";

const PAY_TO = "0x2222222222222222222222222222222222222222";
// A public test key (anvil's first dev account); it signs, nothing is sent to a chain here.
const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

const weather = {
  input: { units: "metric" },
  inputSchema: { properties: { units: { type: "string", enum: ["metric", "imperial"] } } },
  output: {
    example: { city: "paris", temperature: 21 },
    schema: { properties: { temperature: { type: "number" } }, required: ["temperature"] },
  },
};
const translate = {
  bodyType: "json" as const,
  input: { text: "hello", to: "fr" },
  inputSchema: {
    properties: { text: { type: "string" }, to: { type: "string" } },
    required: ["text", "to"],
  },
  output: { example: { text: "bonjour" } },
};
const search = { input: { q: "x402" }, inputSchema: { properties: { q: { type: "string" } } } };

const ROUTES: X402Options["routes"] = {
  "GET /weather/:city": { price: "$0.01", description: "Weather of a city", discovery: weather },
  "POST /translate": { price: "$0.02", description: "Translate a text", discovery: translate },
  // The official declaration given as it is, on a route of any method.
  "/search": {
    price: "$0.01",
    extensions: { ...declareDiscoveryExtension(search), note: { kept: true } },
  },
};

let facilitator: FacilitatorDouble;
const servers: LoopbackServer[] = [];

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await facilitator.close();
});

async function offerAt(url: string, init?: RequestInit): Promise<PaymentRequired> {
  const res = await fetch(url, init);
  expect(res.status).toBe(402);
  const header = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
  // The body repeats the header's offer, extensions included.
  expect(((await res.json()) as PaymentRequired).extensions).toEqual(header.extensions);
  return header;
}

/** What the official server would emit: its declaration, enriched by its server extension for the request. */
function officialEnriched(
  declared: Record<string, unknown>,
  method: string,
  routePattern: string,
  path: string,
) {
  const context = { method, routePattern, adapter: { getPath: () => path } };
  return bazaarResourceServerExtension.enrichDeclaration?.(declared.bazaar, context);
}

describe.each(PAYWALL_ADAPTERS)("Bazaar discovery in JSON 402 offers ($name)", (adapter) => {
  let base: string;

  beforeAll(async () => {
    const reply = (body: unknown) => (_req: unknown, res: Parameters<typeof sendJson>[0]) =>
      sendJson(res, 200, body);
    const app: RequestListener = adapter.app(
      { facilitator: { url: facilitator.url }, payTo: PAY_TO, network: "eip155:84532", routes: ROUTES },
      {
        "GET /weather/paris": reply({ city: "paris", temperature: 21 }),
        "POST /translate": reply({ text: "bonjour" }),
        "GET /search": reply({ results: [] }),
      },
    );
    const server = await listenOnLoopback(app);
    servers.push(server);
    base = server.url;
  });

  it("a GET route with a path parameter: the official validation passes and the official server's shape is matched", async () => {
    const offer = await offerAt(`${base}/weather/paris?units=metric`);
    const bazaar = offer.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(bazaar as never)).toEqual({ valid: true });
    expect(bazaar).toEqual(
      officialEnriched(declareDiscoveryExtension(weather), "GET", "/weather/:city", "/weather/paris"),
    );
    expect(bazaar).toMatchObject({
      routeTemplate: "/weather/:city",
      info: {
        input: { type: "http", method: "GET", pathParams: { city: "paris" }, queryParams: weather.input },
      },
    });
    expect(catalogue(offer)).toMatchObject({
      resourceUrl: `${base}/weather/:city`,
      method: "GET",
      routeTemplate: "/weather/:city",
      description: "Weather of a city",
      discoveryInfo: { output: { type: "json", example: weather.output.example } },
    });
  });

  it("a POST route with a JSON body schema: valid, extractable, the method POST", async () => {
    const offer = await offerAt(`${base}/translate`, { method: "POST" });
    const bazaar = offer.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar).toEqual(
      officialEnriched(declareDiscoveryExtension(translate), "POST", "/translate", "/translate"),
    );
    expect(bazaar.info.input).toMatchObject({ method: "POST", bodyType: "json", body: translate.input });
    expect(catalogue(offer)).toMatchObject({ resourceUrl: `${base}/translate`, method: "POST" });
  });

  it("an official declaration under extensions: the request's method filled in, other extensions kept", async () => {
    const get = await offerAt(`${base}/search?q=1`);
    expect(get.extensions?.note).toEqual({ kept: true });
    const bazaar = get.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar).toEqual(officialEnriched(declareDiscoveryExtension(search), "GET", "/search", "/search"));
    const del = await offerAt(`${base}/search`, { method: "DELETE" });
    expect((del.extensions?.bazaar as DiscoveryExtension).info.input).toMatchObject({ method: "DELETE" });
    expect(validateDiscoveryExtension(del.extensions?.bazaar as DiscoveryExtension)).toEqual({ valid: true });
    // A POST cannot carry query parameters' declaration: no declaration rather than a false one.
    const post = await offerAt(`${base}/search`, { method: "POST" });
    expect(post.extensions).toEqual({ note: { kept: true } });
  });

  it("paid by the official client: one verify, one settle, and the facilitator catalogues the payload's declaration", async () => {
    const before = { verify: facilitator.count("verify"), settle: facilitator.count("settle") };
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));
    const res = await pay(`${base}/translate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello", to: "fr" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: "bonjour" });
    expect(facilitator.count("verify") - before.verify).toBe(1);
    expect(facilitator.count("settle") - before.settle).toBe(1);
    const settled = facilitator.calls.filter((call) => call.endpoint === "settle").at(-1)?.body as {
      paymentPayload: PaymentPayload;
      paymentRequirements: PaymentRequirements;
    };
    expect(settled.paymentRequirements).toMatchObject({ amount: "20000", payTo: PAY_TO });
    expect(extractDiscoveryInfo(settled.paymentPayload, settled.paymentRequirements)).toMatchObject({
      resourceUrl: `${base}/translate`,
      method: "POST",
      discoveryInfo: { input: { bodyType: "json", body: translate.input } },
    });
  });
});

describe("Bazaar declarations checked when x402() starts", () => {
  const start = (routes: X402Options["routes"]) => () =>
    x402({ facilitator: { url: facilitator.url }, payTo: PAY_TO, network: "eip155:84532", routes });

  it.each([
    [
      "an official body declaration on a GET route",
      {
        "GET /x": { price: "$0.01", extensions: declareDiscoveryExtension({ bodyType: "json", input: {} }) },
      },
      /routes\["GET \/x"\]\.extensions: the bazaar declaration Bazaar reads a body \(bodyType\) on POST, PUT or PATCH, not on GET/,
    ],
    [
      "a declaration whose method is another route's",
      {
        "DELETE /x": {
          price: "$0.01",
          extensions: {
            bazaar: {
              ...declareDiscoveryExtension({}).bazaar,
              info: { input: { type: "http", method: "GET" } },
            },
          },
        },
      },
      /routes\["DELETE \/x"\]\.extensions: the bazaar declaration info\.input\.method GET on a DELETE route/,
    ],
    [
      "query parameters on a POST route",
      { "POST /x": { price: "$0.01", discovery: { input: { q: "1" } } } },
      /routes\["POST \/x"\]\.discovery: Bazaar reads query parameters \(no bodyType\) on GET, HEAD or DELETE, not on POST/,
    ],
    [
      "a discovery on an OPTIONS route",
      { "OPTIONS /x": { price: "$0.01", discovery: {} } },
      /routes\["OPTIONS \/x"\]\.discovery: Bazaar reads query parameters \(no bodyType\) on GET, HEAD or DELETE, not on OPTIONS/,
    ],
    [
      "an example nested past the depth limit",
      {
        "GET /x": {
          price: "$0.01",
          discovery: { output: { example: JSON.parse(`${'{"a":'.repeat(40)}1${"}".repeat(40)}`) } },
        },
      },
      /routes\["GET \/x"\]\.discovery\.output\.example(\.a)+: nested deeper than 32 levels/,
    ],
    [
      "a discovery on a route offered in CBOR only",
      {
        "GET /x": { cbor: { currency: "USDC", amount: "1000", merchantPseudonym: "m:shop" }, discovery: {} },
      },
      /routes\["GET \/x"\]\.discovery: a route offered in CBOR only has no JSON offer to carry it/,
    ],
  ])("refuses %s, naming the route and field", (_name, routes, message) => {
    expect(start(routes as X402Options["routes"])).toThrow(message);
  });

  it("accepts an MCP tool's official declaration as it is, and offers it unchanged", async () => {
    const tool = declareDiscoveryExtension({ toolName: "apy", inputSchema: { type: "object" } });
    const app = PAYWALL_ADAPTERS[1]!.app(
      {
        facilitator: { url: facilitator.url },
        payTo: PAY_TO,
        network: "eip155:84532",
        routes: { "POST /mcp": { price: "$0.01", extensions: tool } },
      },
      {},
    );
    const server = await listenOnLoopback(app);
    servers.push(server);
    const offer = await offerAt(`${server.url}/mcp`, { method: "POST" });
    expect(offer.extensions).toEqual(tool);
    expect(validateDiscoveryExtension(offer.extensions?.bazaar as DiscoveryExtension)).toEqual({
      valid: true,
    });
  });
});

describe("Bazaar discovery below a mount path", () => {
  it("the routeTemplate names the path a client calls (mount path included)", async () => {
    const app = express();
    app.use(
      "/v1",
      x402({ facilitator: { url: facilitator.url }, payTo: PAY_TO, network: "eip155:84532", routes: ROUTES }),
    );
    const server = await listenOnLoopback(app);
    servers.push(server);
    const offer = await offerAt(`${server.url}/v1/weather/lyon`);
    const bazaar = offer.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar).toMatchObject({
      routeTemplate: "/v1/weather/:city",
      info: { input: { pathParams: { city: "lyon" } } },
    });
    expect(catalogue(offer)).toMatchObject({ resourceUrl: `${server.url}/v1/weather/:city` });
  });
});
