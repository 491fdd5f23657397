import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitUrl } from "../../src/paywall/request/requestParts.js";
import { AssetTable } from "../../src/pricing/knownAssets.js";
import { lenientReadings, MAX_READINGS } from "../../src/pricing/lenientReadings.js";
import { RouteTable } from "../../src/pricing/RouteTable.js";
import { spellings } from "../security/support/spellings.js";

const table = new RouteTable(
  {
    "GET /api/apy": { price: "$0.001" },
    "POST /api/stake": { price: "$0.01" },
    "GET /api/r/premium": { price: "$5" },
    "GET /api/r/:id": { price: "$0.001" },
    "GET /api/metrics/:userAddress": { price: "$0.001" },
  },
  {
    payTo: "0x1111111111111111111111111111111111111111",
    network: "eip155:84532",
    maxTimeoutSeconds: 60,
    assets: new AssetTable(),
  },
);
const refuse = { refuseLenientReadings: true };
const keyOf = (method: string, path: string, options: { refuseLenientReadings?: boolean } = refuse) => {
  const match = table.match(method, path, options);
  return match.kind === "priced"
    ? match.route.key
    : match.kind === "invalid"
      ? `invalid:${match.reason}`
      : "free";
};

describe("lenientReadings", () => {
  it.each([
    ["/api/apy;x=1", "/api/apy"],
    ["/api;x=1/apy", "/api/apy"],
    ["/api/%2561py", "/api/apy"],
    ["/api/apy%00", "/api/apy"],
    ["/api/apy%2500", "/api/apy"],
    ["/api/apy..", "/api/apy"],
    ["/api/apy%20", "/api/apy"],
    ["/api/%EF%BD%81py", "/api/apy"],
    ["/api/apy%23x", "/api/apy"],
    ["/api/apy%253Fx", "/api/apy"],
    ["/api\\apy", "/api/apy"],
    ["/api/x/..;/apy", "/api/x/../apy"],
  ])("%s can be read as %s", (path, reading) => {
    expect(lenientReadings(path)?.has(reading)).toBe(true);
  });

  it("leaves ordinary paths alone (one reading: the path itself; with a dot in the last segment, also without its format suffix)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[A-Za-z0-9_~-][A-Za-z0-9._~-]*[A-Za-z0-9_~-]$/), { maxLength: 5 }),
        fc.stringMatching(/^[A-Za-z0-9_~-]+$/),
        fc.option(fc.stringMatching(/^[A-Za-z0-9_~-]+$/), { nil: undefined }),
        (segments, last, suffix) => {
          const bare = `/${[...segments, last].join("/")}`;
          expect([...(lenientReadings(bare) ?? [])]).toEqual([bare]);
          if (suffix === undefined) return;
          expect([...(lenientReadings(`${bare}.${suffix}`) ?? [])].sort()).toEqual(
            [bare, `${bare}.${suffix}`].sort(),
          );
        },
      ),
    );
  });

  it("gives up (undefined) past MAX_READINGS rather than enumerating forever", () => {
    const hostile = `/${Array.from({ length: 12 }, (_, i) => `s${i};p%253B%2500.`).join("/")}`;
    const readings = lenientReadings(hostile);
    expect(readings === undefined || readings.size <= MAX_READINGS).toBe(true);
    expect(keyOf("GET", `/api/apy${"%2525".repeat(40)};${"%3B;".repeat(40)}`)).toMatch(/^invalid|free/);
  });
});

describe("RouteTable.match with refuseLenientReadings", () => {
  it.each([
    ["GET", "/api/apy;x=1", "invalid:lenient_reading"],
    ["GET", "/api/r/premium;x", "invalid:lenient_reading"],
    ["GET", "/api/r/premium%20", "invalid:lenient_reading"],
    ["GET", "/api/r/cheap;x", "GET /api/r/:id"],
    ["GET", "/api/metrics/0xAbC", "GET /api/metrics/:userAddress"],
    ["GET", "/api/apy", "GET /api/apy"],
    ["GET", "/API/APY/", "GET /api/apy"],
    ["GET", "/api/apy#x", "GET /api/apy"],
    ["GET", "/free;x/y%20", "free"],
    ["GET", "/api%2fapy", "invalid:encoded_slash"],
  ])("%s %s → %s", (method, path, expected) => {
    expect(keyOf(method, path)).toBe(expected);
  });

  it("without it, only the strict reading counts (for servers known to read paths strictly)", () => {
    expect(keyOf("GET", "/api/apy;x=1", {})).toBe("free");
    expect(keyOf("GET", "/api/r/premium;x", {})).toBe("GET /api/r/:id");
  });

  it("any combined spelling of a priced path is priced as that path or refused (fast-check)", () => {
    fc.assert(
      fc.property(spellings(), ({ method, target }) => {
        const plain = keyOf(method, splitUrl(target).pathname, {});
        const key = keyOf(method, splitUrl(target).pathname);
        const original = method === "POST" ? "POST /api/stake" : undefined;
        expect(key.startsWith("invalid:") || key === plain).toBe(true);
        expect(key).not.toBe("free");
        if (original && !key.startsWith("invalid:")) expect(key).toBe(original);
      }),
      { numRuns: 2000 },
    );
  });
});
