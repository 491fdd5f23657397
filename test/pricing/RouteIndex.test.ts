import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRoutePattern, patternMatches } from "../../src/pricing/compileRoutePattern.js";
import { RouteIndex } from "../../src/pricing/RouteIndex.js";

const SEGMENTS = ["a", "b", "api", ":id", ":x"];
const METHODS = ["GET", "POST", "HEAD", "OPTIONS"];

const routeKey = fc
  .tuple(
    fc.option(fc.constantFrom("GET", "POST"), { nil: undefined }),
    fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 4 }),
    fc.boolean(),
  )
  .map(([method, segments, wildcard]) => {
    const path = `/${[...segments, ...(wildcard ? ["*"] : [])].join("/")}`;
    return method ? `${method} ${path}` : path;
  });

describe("RouteIndex", () => {
  it("finds what trying every pattern in order finds, for any table and path", () => {
    fc.assert(
      fc.property(
        fc.array(routeKey, { maxLength: 12 }),
        fc.constantFrom(...METHODS),
        fc.array(fc.constantFrom("a", "b", "api", "c"), { maxLength: 5 }),
        (keys, method, path) => {
          const patterns = keys
            .map((key) => compileRoutePattern(key))
            .sort((x, y) => y.specificity - x.specificity)
            .map((pattern, position) => ({ pattern, value: position }));
          const linear = patterns.find(({ pattern }) => patternMatches(pattern, method, path))?.value;
          expect(new RouteIndex(patterns).find(method, path)).toBe(linear);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("picks the earliest of several matches, literal, param and wildcard alike", () => {
    const keys = ["/api/*", "GET /api/:id", "GET /api/a", "/*"];
    const patterns = keys.map((key, position) => ({ pattern: compileRoutePattern(key), value: position }));
    const index = new RouteIndex(patterns);
    expect(index.find("GET", ["api", "a"])).toBe(0);
    expect(new RouteIndex([...patterns].reverse()).find("GET", ["api", "a"])).toBe(3);
    expect(index.find("GET", [])).toBe(3);
    // A route without a method prices OPTIONS too, as the official matcher does.
    expect(index.find("OPTIONS", ["api", "a"])).toBe(0);
    expect(new RouteIndex(patterns.slice(1, 3)).find("OPTIONS", ["api", "a"])).toBeUndefined();
  });
});
