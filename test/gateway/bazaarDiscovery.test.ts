import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { validateDiscoveryExtension, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { ConfigError } from "../../src/config/ConfigError.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { catalogue } from "../support/bazaarCatalogue.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { startUpstream } from "./support/startUpstream.js";

const FILE = "gateway.yaml";
const head = (facilitatorUrl: string, upstreamUrl: string) => `listen:
  host: 127.0.0.1
  port: 0
facilitator:
  url: ${facilitatorUrl}
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: ${upstreamUrl}
logging:
  level: silent
routes:
`;

// Discovery as an operator writes it in YAML: an input schema, an output example and schema per route.
const ROUTES = `  GET /apy/:pool:
    price: $0.001
    description: APY of a staking pool
    discovery:
      input: { window: "7d" }
      inputSchema:
        properties:
          window: { type: string, enum: ["1d", "7d", "30d"] }
      output:
        example: { pool: "strk", apy: 0.061 }
        schema:
          properties:
            apy: { type: number }
          required: [apy]
  POST /quote:
    price: $0.002
    discovery:
      bodyType: json
      input: { amount: "100" }
      inputSchema:
        properties:
          amount: { type: string }
        required: [amount]
`;

let facilitator: FacilitatorDouble;
let upstream: Awaited<ReturnType<typeof startUpstream>>;
let gateway: RunningGateway;

beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
  const config = parseConfig(head(facilitator.url, upstream.url) + ROUTES, { file: FILE, env: {} });
  gateway = await createGateway(config).listen();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
  await facilitator?.close();
});

function problemsOf(routes: string): string {
  try {
    parseConfig(head("http://127.0.0.1:9", "http://127.0.0.1:9") + routes, { file: FILE, env: {} });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("Bazaar discovery declared in the gateway config", () => {
  it("the 402 of a GET route carries a declaration the official package validates and catalogues", async () => {
    const res = await fetch(`${gateway.url}/apy/strk?window=7d`);
    expect(res.status).toBe(402);
    const offer = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    const bazaar = offer.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(catalogue(offer)).toMatchObject({
      resourceUrl: `${gateway.url}/apy/:pool`,
      method: "GET",
      description: "APY of a staking pool",
      discoveryInfo: {
        input: { type: "http", method: "GET", queryParams: { window: "7d" }, pathParams: { pool: "strk" } },
        output: { type: "json", example: { pool: "strk", apy: 0.061 } },
      },
    });
    // Nothing reached the upstream unpaid.
    expect(upstream.seen).toHaveLength(0);
  });

  it("the 402 of a POST route carries its body schema", async () => {
    const res = await fetch(`${gateway.url}/quote`, { method: "POST", body: "{}" });
    expect(res.status).toBe(402);
    const offer = decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "");
    const bazaar = offer.extensions?.bazaar as DiscoveryExtension;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toEqual({
      type: "http",
      method: "POST",
      bodyType: "json",
      body: { amount: "100" },
    });
  });

  it.each([
    [
      "a body on a GET route",
      "  GET /x:\n    price: $0.01\n    discovery: { bodyType: json }\n",
      /gateway\.yaml:15:16 routes\["GET \/x"\]\.discovery: Bazaar reads a body \(bodyType\) on POST, PUT or PATCH, not on GET/,
    ],
    [
      "an unknown body type",
      "  POST /x:\n    price: $0.01\n    discovery: { bodyType: xml }\n",
      /routes\["POST \/x"\]\.discovery\.bodyType: Invalid option/,
    ],
    [
      "a __proto__ key in a schema",
      '  GET /x:\n    price: $0.01\n    discovery:\n      inputSchema: { "__proto__": { type: string } }\n',
      /routes\["GET \/x"\]\.discovery\.inputSchema\.__proto__: the key "__proto__"/,
    ],
    [
      "an external $ref",
      '  GET /x:\n    price: $0.01\n    discovery:\n      inputSchema: { $ref: "https://evil.example/s.json" }\n',
      /discovery\.inputSchema\.\$ref: a reference outside the schema/,
    ],
    [
      "an output schema without an example",
      "  GET /x:\n    price: $0.01\n    discovery:\n      output: { schema: { type: object } }\n",
      /discovery\.output\.schema: `output\.schema` describes `output\.example`/,
    ],
    [
      "an unknown discovery key",
      "  GET /x:\n    price: $0.01\n    discovery: { method: GET }\n",
      /discovery/,
    ],
    [
      "both discovery and extensions.bazaar",
      "  GET /x:\n    price: $0.01\n    discovery: {}\n    extensions:\n      bazaar: { info: { input: { type: http } }, schema: { properties: { input: {} } } }\n",
      /not both/,
    ],
    [
      "a malformed extensions.bazaar",
      "  GET /x:\n    price: $0.01\n    extensions:\n      bazaar: { info: { input: { type: ftp } } }\n",
      /extensions\.bazaar\.info\.input\.type: expected "http" or "mcp"/,
    ],
    [
      "pathParams on a route without :params",
      '  GET /x:\n    price: $0.01\n    discovery: { pathParams: { id: "1" } }\n',
      /pathParams on a route without :params needs pathParamsSchema/,
    ],
  ])("refuses %s at start-up, naming the route and field", (_name, routes, message) => {
    expect(problemsOf(routes)).toMatch(message);
  });
});
