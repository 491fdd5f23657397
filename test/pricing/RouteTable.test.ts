import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { RouteTable } from "../../src/pricing/RouteTable.js";
import { AssetTable } from "../../src/pricing/knownAssets.js";
import { normalizePath } from "../../src/pricing/normalizePath.js";
import { parseMoney } from "../../src/pricing/parseMoney.js";

const defaults = {
  payTo: "0x1111111111111111111111111111111111111111",
  network: "eip155:84532",
  maxTimeoutSeconds: 60,
  assets: new AssetTable(),
};

const table = new RouteTable(
  {
    "GET /api/apy": { price: "$0.001" },
    "POST /api/stake": {
      price: "$0.01",
      accepts: [{ scheme: "exact-pq", network: "eip155:8453", price: "0.02" }],
    },
    "GET /api/metrics/validator": { price: "$0.002" },
    "GET /api/metrics/:userAddress": { price: "$0.003" },
    "/files/*": { price: "$1" },
  },
  defaults,
);

function keyOf(method: string, path: string): string | undefined {
  const match = table.match(method, path);
  return match.kind === "priced" ? match.route.key : match.kind;
}

describe("normalizePath", () => {
  it.each([
    ["/api/apy", "/api/apy"],
    ["/api//apy/", "/api/apy"],
    ["/api/./x/../apy", "/api/apy"],
    ["/api/%61py", "/api/apy"],
    ["/api/%2e%2e/api/apy", "/api/apy"],
    ["/a%20b", "/a%20b"],
    ["/a%c3%a9", "/a%C3%A9"],
    ["/../../etc", "/etc"],
    ["/", "/"],
    ["/a/", "/a"],
    ["/.well-known/x", "/.well-known/x"],
    ["/a/..b/c", "/a/..b/c"],
    ["/a/.", "/a"],
  ])("%s → %s", (raw, expected) => {
    expect(normalizePath(raw)).toEqual({ ok: true, path: expected });
  });

  it.each([
    ["/api%2Fapy", "encoded_slash"],
    ["/api%5capy", "encoded_slash"],
    ["/api\\apy", "backslash"],
    ["/api/%zz", "malformed_percent_encoding"],
    ["/api/%4", "malformed_percent_encoding"],
    ["api", "not_absolute"],
  ])("%s is rejected (%s)", (raw, reason) => {
    expect(normalizePath(raw)).toEqual({ ok: false, reason });
  });

  it("property: never throws, always absolute, idempotent, no dot segments or empty segments", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("/", ".", "%", "2", "e", "f", "a", "\\", "5", "c", "~", "x") }),
        (tail) => {
          const result = normalizePath(`/${tail}`);
          if (!result.ok) return;
          expect(result.path.startsWith("/")).toBe(true);
          expect(normalizePath(result.path)).toEqual(result);
          const segments = result.path.split("/").slice(1);
          if (result.path !== "/")
            expect(segments.every((s) => s !== "" && s !== "." && s !== "..")).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("RouteTable", () => {
  it("matches method and path, most specific first", () => {
    expect(keyOf("GET", "/api/apy")).toBe("GET /api/apy");
    expect(keyOf("HEAD", "/api/apy")).toBe("GET /api/apy");
    expect(keyOf("POST", "/api/apy")).toBe("free");
    expect(keyOf("GET", "/api/metrics/validator")).toBe("GET /api/metrics/validator");
    expect(keyOf("GET", "/api/metrics/0xabc")).toBe("GET /api/metrics/:userAddress");
    expect(keyOf("DELETE", "/files")).toBe("/files/*");
    expect(keyOf("OPTIONS", "/files/a")).toBe("/files/*");
    expect(keyOf("PUT", "/files/a/b/c")).toBe("/files/*");
    expect(keyOf("GET", "/health")).toBe("free");
  });

  it("matches on the normalised path, case-insensitively like Express", () => {
    expect(keyOf("GET", "/API//Apy/")).toBe("GET /api/apy");
    expect(keyOf("GET", "/x/../api/%61py")).toBe("GET /api/apy");
    const match = table.match("GET", "/api/./metrics//0xABC/");
    expect(match).toMatchObject({ kind: "priced", path: "/api/metrics/0xABC" });
  });

  it("rejects ambiguous encodings only where they could reach a priced route", () => {
    expect(table.match("GET", "/api%2Fapy")).toEqual({ kind: "invalid", reason: "encoded_slash" });
    expect(table.match("GET", "/api\\apy")).toEqual({ kind: "invalid", reason: "backslash" });
    expect(table.match("GET", "/files/%zz")).toEqual({
      kind: "invalid",
      reason: "malformed_percent_encoding",
    });
    expect(table.match("GET", "/public/a%2Fb")).toEqual({ kind: "free" });
  });

  it("still matches routes that start with a parameter, a bare wildcard, or the root", () => {
    const paramFirst = new RouteTable({ "GET /:tenant/report": { price: "$1" } }, defaults);
    expect(paramFirst.match("GET", "/acme/report")).toMatchObject({ kind: "priced" });
    const everything = new RouteTable({ "/*": { price: "$1" } }, defaults);
    expect(everything.match("POST", "/any/thing")).toMatchObject({ kind: "priced" });
    expect(everything.match("GET", "/")).toMatchObject({ kind: "priced" });
    const root = new RouteTable({ "GET /": { price: "$1" }, "GET /a": { price: "$1" } }, defaults);
    expect(root.match("GET", "/")).toMatchObject({ kind: "priced", route: { key: "GET /" } });
    expect(root.match("GET", "/b")).toEqual({ kind: "free" });
  });

  it("builds requirements with integer money and the asset's EIP-712 domain", () => {
    const stake = table.routes.find((route) => route.key === "POST /api/stake");
    expect(stake?.requirements).toEqual([
      {
        scheme: "exact",
        network: "eip155:84532",
        amount: "10000",
        asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
        payTo: defaults.payTo,
        maxTimeoutSeconds: 60,
        extra: { name: "USDC", version: "2" },
      },
      {
        scheme: "exact-pq",
        network: "eip155:8453",
        amount: "20000",
        asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        payTo: defaults.payTo,
        maxTimeoutSeconds: 60,
        extra: { name: "USD Coin", version: "2" },
      },
    ]);
  });

  it("fails at start-up on bad keys and prices, naming the route", () => {
    expect(() => new RouteTable({ "FETCH /x": { price: "$1" } }, defaults)).toThrow(/routes\["FETCH \/x"\]/);
    expect(() => new RouteTable({ "GET /x": { price: "$0.0000001" } }, defaults)).toThrow(/6 decimal places/);
    expect(() => new RouteTable({ "GET /x": { price: "$0" } }, defaults)).toThrow(/zero/);
    expect(() => new RouteTable({ "GET /x": { price: "$1", network: "eip155:1" } }, defaults)).toThrow(
      /no default asset is known for eip155:1/,
    );
    expect(() => new RouteTable({ "GET /a/[id": { price: "$1" } }, defaults)).toThrow(/bad parameter/);
    expect(() => new RouteTable({ "GET /a/:1": { price: "$1" } }, defaults)).toThrow(/bad parameter/);
    expect(() => new RouteTable({ "GET /a b/c": { price: "$1" } }, defaults)).toThrow(/METHOD \/path/);
    expect(() => new RouteTable({ "GET /a%2Fb": { price: "$1" } }, defaults)).toThrow(/unencoded/);
    expect(() => new RouteTable({ "GET api": { price: "$1" } }, defaults)).toThrow(/must start with \//);
  });

  it("property: a normalised path never matches a route its segments do not spell", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("api", "apy", "..", ".", "", "%2e", "%2E%2e", "metrics", "APY", "x"), {
          maxLength: 6,
        }),
        (parts) => {
          const raw = `/${parts.join("/")}`;
          const match = table.match("GET", raw);
          if (match.kind !== "priced") return;
          const segments = match.path.toLowerCase().split("/").slice(1);
          const literal = match.route.pattern.segments;
          literal.forEach((segment, i) => {
            if (segment !== null) expect(segments[i]).toBe(segment);
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("parseMoney", () => {
  it("uses integers only", () => {
    expect(parseMoney("$0.01", 6)).toBe(10_000n);
    expect(parseMoney("0.000001", 6)).toBe(1n);
    expect(parseMoney("$12345678901234567890.5", 18)).toBe(12345678901234567890500000000000000000n);
    expect(() => parseMoney("1e-3", 6)).toThrow(/not a money string/);
    expect(() => parseMoney("-1", 6)).toThrow(/not a money string/);
  });
});

describe("routable methods", () => {
  it("are the methods Node's parser accepts, CONNECT aside", async () => {
    const { METHODS } = await import("node:http");
    const { ROUTABLE_METHODS } = await import("../../src/pricing/compileRoutePattern.js");
    for (const method of ROUTABLE_METHODS) expect(METHODS).toContain(method);
    expect(ROUTABLE_METHODS.has("CONNECT")).toBe(false);
    expect(METHODS.filter((method) => method !== "CONNECT" && !ROUTABLE_METHODS.has(method))).toEqual(
      METHODS.includes("QUERY") ? ["QUERY"] : [],
    );
  });
});

describe("caseSensitivePaths", () => {
  const routes = {
    "GET /api/metrics/validator": { price: "$0.002" },
    "GET /api/metrics/:userAddress": { price: "$0.003" },
    "GET /api/apy": { price: "$0.001" },
  };
  const sensitive = new RouteTable(routes, { ...defaults, caseSensitivePaths: true });
  const insensitive = new RouteTable(routes, defaults);
  const keyIn = (routeTable: RouteTable, path: string) => {
    const match = routeTable.match("GET", path);
    return match.kind === "priced" ? match.route.key : match.kind;
  };

  it.each([
    ["/api/metrics/validator", "GET /api/metrics/validator", "GET /api/metrics/validator"],
    ["/api/metrics/Validator", "GET /api/metrics/:userAddress", "GET /api/metrics/validator"],
    ["/api/metrics/VALIDATOR", "GET /api/metrics/:userAddress", "GET /api/metrics/validator"],
    ["/api/metrics/0xAbC", "GET /api/metrics/:userAddress", "GET /api/metrics/:userAddress"],
    // Another case of a priced literal is refused, never free: the official matcher prices it.
    ["/API/apy", "invalid", "GET /api/apy"],
    ["/api/APY", "invalid", "GET /api/apy"],
    ["/Api/metrics/validator", "invalid", "GET /api/metrics/validator"],
    ["/api/other", "free", "free"],
  ])("%s → %s (case-sensitive), %s (default)", (path, whenSensitive, byDefault) => {
    expect(keyIn(sensitive, path)).toBe(whenSensitive);
    expect(keyIn(insensitive, path)).toBe(byDefault);
  });

  it("property: case-sensitive, a literal matches only in its own case; the default ignores case", () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.constantFrom("/api/apy", "/api/metrics/validator"),
        (flips, path) => {
          let at = 0;
          const cased = path.replace(/[a-z]/g, (c) => (flips[at++ % 3] && at < 4 ? c.toUpperCase() : c));
          const changed = cased !== path;
          expect(keyIn(insensitive, cased)).toBe(keyIn(insensitive, path));
          if (!changed) expect(keyIn(sensitive, cased)).toBe(keyIn(sensitive, path));
          else expect(keyIn(sensitive, cased)).not.toBe(keyIn(sensitive, path));
        },
      ),
    );
  });
});

describe("RouteTable's memo of answers", () => {
  const routes = {
    "GET /api/apy": { price: "$0.001" },
    "GET /api/metrics/:userAddress": { price: "$0.003" },
    "/files/*": { price: "$1" },
  };
  const pathChars = fc.constantFrom(
    "/",
    ".",
    "%",
    "2",
    "e",
    "f",
    "a",
    "p",
    "i",
    "y",
    "\\",
    "5",
    "c",
    "~",
    "A",
  );
  const asked = fc.record({
    method: fc.constantFrom("GET", "get", "POST", "PROPFIND"),
    path: fc.oneof(
      fc.string({ unit: pathChars, maxLength: 24 }).map((rest) => `/${rest}`),
      fc.constantFrom("/api/apy", "/API/apy", "/api/apy/", "/api/%61py", "/files/a/../b", "//api/apy"),
    ),
    rawPath: fc.option(
      fc.string({ unit: pathChars, maxLength: 12 }).map((rest) => `/${rest}`),
      {
        nil: undefined,
      },
    ),
    refuseLenientReadings: fc.boolean(),
    normalized: fc.boolean(),
  });

  type Asked = typeof asked extends fc.Arbitrary<infer T> ? T : never;

  it("answers as a table that never saw the path, however many paths came before (past the memo's size)", () => {
    const longLived = new RouteTable(routes, defaults);
    const ask = (table: RouteTable, q: Asked) =>
      q.normalized
        ? table.matchNormalized(q.method, q.path, {
            refuseLenientReadings: q.refuseLenientReadings,
            rawPath: q.rawPath,
          })
        : table.match(q.method, q.path, { refuseLenientReadings: q.refuseLenientReadings });
    fc.assert(
      fc.property(fc.array(asked, { minLength: 1, maxLength: 40 }), (questions) => {
        for (const q of questions) {
          const fresh = ask(new RouteTable(routes, defaults), q);
          expect(ask(longLived, q)).toEqual(fresh);
          // Asked again: the memo's answer, the same.
          expect(ask(longLived, q)).toEqual(fresh);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps its size bounded, and does not keep very long paths", () => {
    const bounded = new RouteTable(routes, defaults);
    // The memo's plain shelf (`match`, not lenient, no raw path), by method then path.
    const kept = () => (bounded as unknown as { memo: Array<Map<string, Map<string, unknown>>> }).memo[0]!;
    const size = () => [...kept().values()].reduce((total, byPath) => total + byPath.size, 0);
    for (let i = 0; i < 3000; i++) bounded.match("GET", `/api/${i}`);
    expect(size()).toBe(1024);
    bounded.match("GET", `/api/${"a".repeat(600)}`);
    expect(
      kept()
        .get("GET")
        ?.has(`/api/${"a".repeat(600)}`),
    ).toBe(false);
    expect(size()).toBe(1024);
    // The newest are kept, the oldest dropped.
    expect(kept().get("GET")?.has("/api/2999")).toBe(true);
    expect(kept().get("GET")?.has("/api/0")).toBe(false);
  });

  it("forgets a method's map once its answers are gone: methods a client makes up cost no memory", () => {
    const bounded = new RouteTable(routes, defaults);
    const kept = () => (bounded as unknown as { memo: Array<Map<string, Map<string, unknown>>> }).memo[0]!;
    for (let i = 0; i < 3000; i++) bounded.match(`M${i}`, "/api/apy");
    expect(kept().size).toBe(1024);
    expect(kept().has("M2999")).toBe(true);
    expect(kept().has("M0")).toBe(false);
  });
});
