import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { jsonObjectSchema } from "../../src/pricing/jsonObjectSchema.js";
import { JSON_VALUE_LIMITS, jsonValueIssues } from "../../src/pricing/jsonValueIssues.js";

function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const withGetter = Object.defineProperty({}, "x", { get: () => 1, enumerable: true });
class Point {
  x = 1;
}

/** Hostile or malformed values, each with where the (first) issue is and what it says. */
const CORPUS: Array<[name: string, value: unknown, path: Array<string | number>, message: RegExp]> = [
  [
    "a __proto__ key from JSON.parse",
    JSON.parse('{"a":{"__proto__":{"polluted":true}}}'),
    ["a", "__proto__"],
    /__proto__/,
  ],
  [
    "a constructor key",
    { properties: { constructor: { prototype: {} } } },
    ["properties", "constructor"],
    /constructor/,
  ],
  ["a prototype key in an array item", [{ prototype: 1 }], [0, "prototype"], /prototype/],
  [
    "nesting past the depth",
    nested(JSON_VALUE_LIMITS.maxDepth + 1),
    Array(JSON_VALUE_LIMITS.maxDepth).fill("a"),
    /deeper/,
  ],
  [
    "nesting of 100,000 levels (no stack overflow)",
    nested(100_000),
    Array(JSON_VALUE_LIMITS.maxDepth).fill("a"),
    /deeper/,
  ],
  [
    "more values than allowed",
    Array.from({ length: 100_000 }, () => 0),
    [JSON_VALUE_LIMITS.maxNodes - 1],
    /more than/,
  ],
  ["a long string", { s: "x".repeat(JSON_VALUE_LIMITS.maxStringLength + 1) }, ["s"], /longer/],
  ["a long key", { ["k".repeat(JSON_VALUE_LIMITS.maxStringLength + 1)]: 1 }, [], /key longer/],
  ["a value containing itself", cyclic, ["self"], /contains itself/],
  ["a function", { f: () => 1 }, ["f"], /got function/],
  ["undefined", { u: undefined }, ["u"], /got undefined/],
  ["a hole in an array", Object.assign(new Array<unknown>(3), { 0: 1, 2: 3 }), [1], /got undefined/],
  ["a bigint", { n: 1n }, ["n"], /got bigint/],
  ["a symbol value", { s: Symbol("s") }, ["s"], /got symbol/],
  ["a symbol key", { [Symbol("k")]: 1 }, [], /symbol key/],
  ["NaN", { n: Number.NaN }, ["n"], /finite/],
  ["Infinity", [Number.POSITIVE_INFINITY], [0], /finite/],
  ["a Date", { d: new Date(0) }, ["d"], /plain JSON object/],
  ["a Map", new Map([["a", 1]]), [], /plain JSON object/],
  ["a class instance", { p: new Point() }, ["p"], /plain JSON object/],
  ["a getter", withGetter, ["x"], /accessor/],
];

describe("jsonValueIssues: hostile corpus", () => {
  it.each(CORPUS)("%s", (_name, value, path, message) => {
    const issues = jsonValueIssues(value);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.path).toEqual(path);
    expect(issues[0]?.message).toMatch(message);
  });

  it("a getter is never called", () => {
    let calls = 0;
    const value = Object.defineProperty({}, "x", { get: () => ++calls, enumerable: true });
    jsonValueIssues(value);
    expect(calls).toBe(0);
  });

  it("the zod schema refuses a top-level __proto__ that zod itself would drop silently", () => {
    const result = jsonObjectSchema.safeParse(JSON.parse('{"__proto__":{"x":1},"type":"object"}'));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ["__proto__"] });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(jsonObjectSchema.safeParse([]).success).toBe(false);
    expect(jsonObjectSchema.safeParse(null).success).toBe(false);
  });
});

const POLLUTING = ["__proto__", "constructor", "prototype"] as const;
const plainKey = fc
  .string({ maxLength: 20 })
  .filter((key) => !(POLLUTING as readonly string[]).includes(key));
/** JSON values without the three prototype keys, within the limits by construction. */
const safeJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 50 }),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(plainKey, tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("jsonValueIssues: properties", () => {
  it("what JSON.parse makes of JSON.stringify of a bounded value has no issue", () => {
    fc.assert(
      fc.property(safeJson, (value) => {
        expect(jsonValueIssues(JSON.parse(JSON.stringify(value)))).toEqual([]);
      }),
    );
  });

  it("a prototype key anywhere is found, at its path", () => {
    fc.assert(
      fc.property(
        fc.array(plainKey, { minLength: 0, maxLength: 10 }),
        fc.constantFrom(...POLLUTING),
        safeJson,
        (path, key, leaf) => {
          let text = `{${JSON.stringify(key)}:${JSON.stringify(leaf) ?? "null"}}`;
          for (const step of [...path].reverse()) text = `{${JSON.stringify(step)}:${text}}`;
          const issues = jsonValueIssues(JSON.parse(text));
          expect(issues.some((issue) => JSON.stringify(issue.path) === JSON.stringify([...path, key]))).toBe(
            true,
          );
        },
      ),
    );
  });

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withNullPrototype: true,
        }),
        (value) => {
          expect(Array.isArray(jsonValueIssues(value))).toBe(true);
        },
      ),
    );
  });
});
