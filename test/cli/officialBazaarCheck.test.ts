import { describe, expect, it } from "vitest";
import { gatewayConfigSchema, type GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import { officialBazaarCheck } from "../../src/cli/officialBazaarCheck.js";

function config(routes: GatewayConfigInput["routes"]) {
  return gatewayConfigSchema.parse({
    facilitator: { url: "http://127.0.0.1:9" },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:84532",
    upstreams: [{ url: "http://127.0.0.1:9" }],
    routes,
  });
}

const WEATHER = {
  input: { queryParams: { city: "paris" } },
  inputSchema: { properties: { city: { type: "string" } } },
  output: { example: { temperature: 21 }, schema: { properties: { temperature: { type: "number" } } } },
};

describe("check-config's Bazaar check with the official validator (@x402/extensions, loaded lazily)", () => {
  it("a declaration the official accepts: no warning", async () => {
    const check = await officialBazaarCheck(
      config({ "GET /weather": { price: "$0.01", discovery: WEATHER } }),
    );
    expect(check).toEqual({ available: true, declarations: 1, warnings: [] });
  });

  it("the official's verdict on a declaration whose example contradicts its schema is reported, naming the route", async () => {
    const check = await officialBazaarCheck(
      config({
        "GET /weather": {
          price: "$0.01",
          discovery: {
            ...WEATHER,
            output: { ...WEATHER.output, example: { temperature: "hot" } },
          },
        },
      }),
    );
    expect(check.available).toBe(true);
    if (!check.available) return;
    expect(check.warnings).toHaveLength(1);
    expect(check.warnings).toEqual([
      'Route "GET /weather" has an invalid bazaar extension: /output/example/temperature: must be number',
    ]);
  });

  it("no declaration: nothing loaded, nothing to say", async () => {
    let loaded = false;
    const check = await officialBazaarCheck(config({ "GET /r": { price: "$0.01" } }), async () => {
      loaded = true;
      throw new Error("unreachable");
    });
    expect(loaded).toBe(false);
    expect(check).toEqual({ available: true, declarations: 0, warnings: [] });
  });

  it("the package absent: said so, with the loader's reason, never a failure", async () => {
    const missing = Object.assign(
      new Error("Cannot find package '@x402/extensions' imported from …\nstack"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    );
    const check = await officialBazaarCheck(
      config({ "GET /weather": { price: "$0.01", discovery: WEATHER } }),
      () => Promise.reject(missing),
    );
    expect(check).toEqual({
      available: false,
      declarations: 1,
      reason: "Cannot find package '@x402/extensions' imported from …",
    });
  });
});
