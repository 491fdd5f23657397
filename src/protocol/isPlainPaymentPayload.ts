import { PATTERNS, type EvmExactPayload, type PaymentPayload } from "./schemas.js";

/*
 * Fast shape checks for the common case of a payment header: a `JSON.parse` result that the zod schema
 * would accept and return unchanged (every field valid, no key it would strip). Each check accepts a
 * subset of what its schema accepts, so a value it refuses simply goes through the schema, which also
 * names what is wrong; test/protocol/isPlainPaymentPayload.test.ts holds them to the schemas.
 */

type Json = Record<string, unknown>;

/** An object `JSON.parse` made (never an array) whose keys are all among `keys`. */
function isObjectWithKeysIn(value: unknown, keys: ReadonlySet<string>): value is Json {
  if (!isRecord(value)) return false;
  for (const key in value) if (!keys.has(key)) return false;
  return true;
}

/**
 * A plain object, as `JSON.parse` makes them: what `z.record(z.string(), z.unknown())` accepts as it is
 * (it drops an own `__proto__` key, which `JSON.parse` can make).
 */
function isRecord(value: unknown): value is Json {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    !Object.hasOwn(value, "__proto__")
  );
}

const isString = (value: unknown): value is string => typeof value === "string";
const isNonEmpty = (value: unknown): boolean => typeof value === "string" && value.length > 0;
const matches = (value: unknown, pattern: RegExp): boolean =>
  typeof value === "string" && pattern.test(value);

const PAYLOAD_KEYS = new Set(["x402Version", "resource", "accepted", "payload", "extensions"]);
const RESOURCE_KEYS = new Set(["url", "description", "mimeType"]);
const REQUIREMENTS_KEYS = new Set([
  "scheme",
  "network",
  "amount",
  "asset",
  "payTo",
  "maxTimeoutSeconds",
  "extra",
]);

/** Whether `paymentPayloadSchema` would return this `JSON.parse` result as it is. */
export function isPlainPaymentPayload(value: unknown): value is PaymentPayload {
  if (!isObjectWithKeysIn(value, PAYLOAD_KEYS)) return false;
  const { resource, accepted, extensions } = value;
  return (
    value.x402Version === 2 &&
    (!("resource" in value) ||
      (isObjectWithKeysIn(resource, RESOURCE_KEYS) &&
        isString(resource.url) &&
        (!("description" in resource) || isString(resource.description)) &&
        (!("mimeType" in resource) || isString(resource.mimeType)))) &&
    isObjectWithKeysIn(accepted, REQUIREMENTS_KEYS) &&
    isNonEmpty(accepted.scheme) &&
    matches(accepted.network, PATTERNS.caip2Network) &&
    matches(accepted.amount, PATTERNS.decimalInteger) &&
    isNonEmpty(accepted.asset) &&
    isNonEmpty(accepted.payTo) &&
    Number.isSafeInteger(accepted.maxTimeoutSeconds) &&
    (accepted.maxTimeoutSeconds as number) > 0 &&
    (!("extra" in accepted) || isRecord(accepted.extra)) &&
    isRecord(value.payload) &&
    (!("extensions" in value) || isRecord(extensions))
  );
}

const EVM_KEYS = new Set(["signature", "authorization"]);
const AUTHORIZATION_KEYS = new Set(["from", "to", "value", "validAfter", "validBefore", "nonce"]);

/** Whether `evmExactPayloadSchema` would return this `JSON.parse` result as it is. */
export function isPlainEvmExactPayload(value: unknown): value is EvmExactPayload {
  if (!isObjectWithKeysIn(value, EVM_KEYS)) return false;
  const { authorization } = value;
  return (
    matches(value.signature, PATTERNS.hex) &&
    isObjectWithKeysIn(authorization, AUTHORIZATION_KEYS) &&
    matches(authorization.from, PATTERNS.evmAddress) &&
    matches(authorization.to, PATTERNS.evmAddress) &&
    matches(authorization.value, PATTERNS.decimalInteger) &&
    matches(authorization.validAfter, PATTERNS.decimalInteger) &&
    matches(authorization.validBefore, PATTERNS.decimalInteger) &&
    matches(authorization.nonce, PATTERNS.bytes32)
  );
}
