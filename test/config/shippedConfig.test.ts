import { describe, expect, it } from "vitest";
import { buildRouteTable } from "../../src/pricing/buildRouteTable.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { demoHumanityIssuer } from "../../src/dev/demoHumanityIssuer.js";
import { formatPricedRoutes } from "../../src/cli/start/formatPricedRoutes.js";
import { enrichBazaar } from "../../src/paywall/responses/enrichBazaar.js";
import { validateDiscoveryExtension, type DiscoveryExtension } from "@x402/extensions/bazaar";

const OPERATIONS = [
  "POST /api/stake",
  "POST /api/add-to-pool",
  "POST /api/unstake/intent",
  "POST /api/unstake/action",
  "POST /api/claim",
  "POST /api/restake",
];

describe("config/gateway.yaml", () => {
  it("settles the six staking operations before the backend runs them; reads settle after a 2xx", async () => {
    const config = await loadConfig("config/gateway.yaml", { env: {} });
    const routes = buildRouteTable(config).routes;
    const settleOf = (key: string) => routes.find((route) => route.key === key)?.settle;
    for (const key of OPERATIONS) expect(settleOf(key), key).toBe("before");
    expect(settleOf("GET /api/apy")).toBe("after");
    expect(
      routes
        .filter((route) => route.settle === "before")
        .map((route) => route.key)
        .sort(),
    ).toEqual([...OPERATIONS].sort());
  });

  it("declares Bazaar discovery on GET /api/apy, valid for the official package once the method is filled", async () => {
    const config = await loadConfig("config/gateway.yaml", { env: {} });
    const apy = buildRouteTable(config).routes.find((route) => route.key === "GET /api/apy");
    expect(apy?.bazaar).toBeDefined();
    const offered = enrichBazaar(apy!.bazaar!, { method: "GET", path: "/api/apy", mountPath: "" });
    expect(validateDiscoveryExtension(offered as unknown as DiscoveryExtension)).toEqual({ valid: true });
    expect(offered?.info.output).toMatchObject({ type: "json", example: { success: true } });
  });

  it("npm start's table says which routes settle first", async () => {
    const config = await loadConfig("config/gateway.yaml", { env: {} });
    const lines = formatPricedRoutes(buildRouteTable(config).routes, (amount) => amount, "TestUSDC");
    for (const key of OPERATIONS) {
      expect(lines.find((line) => line.trim().startsWith(`${key} `))).toMatch(/settles first, then runs$/);
    }
    expect(lines.find((line) => line.trim().startsWith("GET /api/apy "))).toMatch(/runs, settles on 2xx$/);
  });

  it("gates one CBOR route on humanity, trusting only the local stack's DEMO issuer", async () => {
    const config = await loadConfig("config/gateway.yaml", { env: {} });
    const gated = buildRouteTable(config).routes.filter((route) => route.cbor?.acceptsHumanityGate);
    expect(gated.map((route) => route.key)).toEqual(["GET /api/metrics/validator"]);
    expect(gated[0]?.cbor?.humanityIssuers).toEqual([demoHumanityIssuer().publicKey]);
    // Humans only: no JSON offer, whose payment could not carry a humanity claim.
    expect(gated[0]?.requirements).toEqual([]);
    const lines = formatPricedRoutes(buildRouteTable(config).routes, (amount) => amount, "TestUSDC");
    expect(lines.find((line) => line.trim().startsWith("GET /api/metrics/validator "))).toMatch(
      /^ +GET \/api\/metrics\/validator +x402\+cbor 1000 USDC units \(humans only\) only +runs, settles on 2xx$/,
    );
  });
});
