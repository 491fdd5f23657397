import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isPlainEvmExactPayload, isPlainPaymentPayload } from "../../src/protocol/isPlainPaymentPayload.js";
import { evmExactPayloadSchema, paymentPayloadSchema } from "../../src/protocol/schemas.js";
import { evmPayment, usdcRequirements } from "../support/payments.js";

/** A valid payment with every optional part, as a client sends it. */
const payment = {
  ...evmPayment(usdcRequirements("1000")),
  resource: { url: "https://api.example.com/weather", description: "Weather", mimeType: "application/json" },
  extensions: { "sign-in-with-x": { info: {} } },
};
const evm = payment.payload as { authorization: Record<string, string> };
const { authorization } = evm;

/** What `JSON.parse` makes of a value: the only kind of input the fast checks are for. */
const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? "null");

/** Set `path` in a copy of `value` (`undefined` deletes the key). */
function withAt(value: unknown, path: readonly string[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path.at(-1) as string;
  if (replacement === undefined) delete target[last];
  else target[last] = replacement;
  return json(copy);
}

/** The fast check agrees with the schema: it takes exactly what the schema accepts and returns with the same content. */
function expectAgreement(
  check: (value: unknown) => boolean,
  schema: { safeParse(value: unknown): { success: boolean; data?: unknown } },
  value: unknown,
): boolean {
  const parsed = schema.safeParse(value);
  // Key order may differ (the schema writes its own), the content may not.
  const returnedAsItIs = parsed.success && isDeepEqual(parsed.data, value);
  const taken = check(value);
  expect(taken).toBe(returnedAsItIs);
  return taken;
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toStrictEqual(b);
    return true;
  } catch {
    return false;
  }
}

const PAYMENT_PATHS = [
  ["x402Version"],
  ["resource"],
  ["resource", "url"],
  ["resource", "description"],
  ["resource", "mimeType"],
  ["accepted"],
  ["accepted", "scheme"],
  ["accepted", "network"],
  ["accepted", "amount"],
  ["accepted", "asset"],
  ["accepted", "payTo"],
  ["accepted", "maxTimeoutSeconds"],
  ["accepted", "extra"],
  ["payload"],
  ["extensions"],
];
const EVM_PATHS = [
  ["signature"],
  ["authorization"],
  ...Object.keys(authorization).map((key) => ["authorization", key]),
];

describe("isPlainPaymentPayload", () => {
  it("takes a valid payment, with or without its optional parts", () => {
    expect(expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, json(payment))).toBe(true);
    for (const optional of [["resource"], ["accepted", "extra"], ["extensions"], ["resource", "mimeType"]])
      expect(
        expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, withAt(payment, optional, undefined)),
      ).toBe(true);
  });

  it.each([
    ["x402Version 1", ["x402Version"], 1],
    ["x402Version as a string", ["x402Version"], "2"],
    ["no x402Version", ["x402Version"], undefined],
    ["no accepted", ["accepted"], undefined],
    ["accepted as an array", ["accepted"], [payment.accepted]],
    ["an empty scheme", ["accepted", "scheme"], ""],
    ["a network that is not CAIP-2", ["accepted", "network"], "base"],
    ["an amount with a leading zero", ["accepted", "amount"], "01000"],
    ["an amount as a number", ["accepted", "amount"], 1000],
    ["a negative amount", ["accepted", "amount"], "-1"],
    ["an empty asset", ["accepted", "asset"], ""],
    ["no payTo", ["accepted", "payTo"], undefined],
    ["maxTimeoutSeconds 0", ["accepted", "maxTimeoutSeconds"], 0],
    ["maxTimeoutSeconds 1.5", ["accepted", "maxTimeoutSeconds"], 1.5],
    ["maxTimeoutSeconds past a safe integer", ["accepted", "maxTimeoutSeconds"], 2 ** 60],
    ["maxTimeoutSeconds as a string", ["accepted", "maxTimeoutSeconds"], "60"],
    ["extra as an array", ["accepted", "extra"], []],
    ["extra as null", ["accepted", "extra"], null],
    ["an unknown key in accepted (stripped)", ["accepted", "price"], "$1"],
    ["an unknown key at the top (stripped)", ["version"], 2],
    ["an unknown key in resource (stripped)", ["resource", "extra"], 1],
    ["a __proto__ key at the top", ["__proto__"], { polluted: true }],
    ["resource as a string", ["resource"], "https://x"],
    ["resource without url", ["resource", "url"], undefined],
    ["a numeric description", ["resource", "description"], 1],
    ["no payload", ["payload"], undefined],
    ["payload as an array", ["payload"], []],
    ["payload as a string", ["payload"], "0x"],
    ["extensions as a string", ["extensions"], "x"],
  ])("refuses %s (the schema reads it)", (_name, path, replacement) => {
    const value =
      path[0] === "__proto__"
        ? JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(payment).slice(1)}`)
        : withAt(payment, path as string[], replacement);
    expect(expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, value)).toBe(false);
  });

  it.each([
    [["payload"], `{"__proto__":1,"signature":"0x"}`],
    [["accepted", "extra"], `{"__proto__":{"a":1}}`],
    [["extensions"], `{"__proto__":null,"x":1}`],
  ])("refuses a __proto__ key in %j (the schema drops it)", (path, record) => {
    const value = json(payment) as Record<string, Record<string, unknown>>;
    const parent = path.length === 1 ? value : (value[path[0] as string] as Record<string, unknown>);
    // JSON.parse makes `__proto__` an own key; an assignment keeps the object as it is.
    parent[path.at(-1) as string] = JSON.parse(record);
    expect(Object.hasOwn(parent[path.at(-1) as string] as object, "__proto__")).toBe(true);
    expect(expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, value)).toBe(false);
  });

  it.each([null, 2, "x", [], [payment], {}, true])("refuses %j", (value) => {
    expect(expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, value)).toBe(false);
  });

  it("property: agrees with the schema on any field replaced, dropped or added", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PAYMENT_PATHS, ["unknown"], ["accepted", "unknown"], ["resource", "unknown"]),
        fc.option(
          fc.oneof(
            fc.jsonValue(),
            fc.string(),
            fc.stringMatching(/^(0|[1-9][0-9]{0,3}|[a-z]{3}:[a-z0-9]{1,4}|0x[0-9a-f]{0,4})$/),
            fc.integer({ min: -2, max: 100 }),
          ),
          { nil: undefined },
        ),
        (path, replacement) => {
          expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, withAt(payment, path, replacement));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("property: agrees with the schema on arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expectAgreement(isPlainPaymentPayload, paymentPayloadSchema, json(value));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("isPlainEvmExactPayload", () => {
  it("takes a valid EVM payload", () => {
    expect(expectAgreement(isPlainEvmExactPayload, evmExactPayloadSchema, json(evm))).toBe(true);
  });

  it.each([
    ["no signature", ["signature"], undefined],
    ["a signature without 0x", ["signature"], "abab"],
    ["a signature with a non-hex digit", ["signature"], "0xabg"],
    ["authorization as an array", ["authorization"], []],
    ["a short from", ["authorization", "from"], "0x1234"],
    ["a to without 0x", ["authorization", "to"], "70997970C51812dc3A010C7d01b50e0d17dc79C8aa"],
    ["a value as a number", ["authorization", "value"], 1000],
    ["a value with a sign", ["authorization", "value"], "+1"],
    ["no validAfter", ["authorization", "validAfter"], undefined],
    ["a validBefore in hex", ["authorization", "validBefore"], "0x10"],
    ["a 31-byte nonce", ["authorization", "nonce"], `0x${"cd".repeat(31)}`],
    ["an unknown key in authorization (stripped)", ["authorization", "chainId"], "1"],
    ["an unknown key (stripped)", ["scheme"], "exact"],
  ])("refuses %s (the schema reads it)", (_name, path, replacement) => {
    expect(
      expectAgreement(isPlainEvmExactPayload, evmExactPayloadSchema, withAt(evm, path, replacement)),
    ).toBe(false);
  });

  it("property: agrees with the schema on any field replaced, dropped or added", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVM_PATHS, ["unknown"], ["authorization", "unknown"]),
        fc.option(
          fc.oneof(
            fc.jsonValue(),
            fc.string(),
            fc.stringMatching(/^(0|[1-9][0-9]{0,3}|0x[0-9a-fA-F]{0,66})$/),
            fc.constantFrom(authorization.from, authorization.nonce, "0x", "0xAB"),
          ),
          { nil: undefined },
        ),
        (path, replacement) => {
          expectAgreement(isPlainEvmExactPayload, evmExactPayloadSchema, withAt(evm, path, replacement));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
