import { sameJson } from "./canonicalJson.js";

/** Fields of an extension's `info` that change with every offer, so a client's echo need not repeat them. */
const DYNAMIC_INFO_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "sign-in-with-x": ["nonce", "issuedAt", "expirationTime"],
  "offer-receipt": ["offers"],
};

/** Array fields a client may add to (it must keep what was offered), with their longest allowed length. */
const ADDITIVE_ARRAY_FIELDS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  "builder-code": { s: 10 },
};

/** Fields only the server may set: an echo that carries one must carry the offered value. */
const SERVER_OWNED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "builder-code": ["a"],
};

/**
 * The key of the first extension a payment's `extensions` echoes wrongly, as `@x402/core` 2.27 checks
 * it (`extension_echo_mismatch`): for each key the offer advertised, the echo's `info` must contain the
 * offered `info` (objects as subsets, other values equal), leaving out the fields that change per offer;
 * server-owned fields must not be invented. A payment without `extensions` echoes nothing and passes.
 */
export function extensionEchoMismatch(
  offered: Readonly<Record<string, unknown>> | undefined,
  echoed: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (echoed === undefined || echoed === null || typeof echoed !== "object") return undefined;
  for (const [key, value] of Object.entries(echoed)) {
    const advertised = infoOf(offered?.[key]);
    const echo = infoOf(value);
    if (offered !== undefined && Object.hasOwn(offered, key)) {
      const dynamic = own(DYNAMIC_INFO_FIELDS, key) ?? [];
      if (
        !contains(without(advertised, dynamic), without(echo, dynamic), own(ADDITIVE_ARRAY_FIELDS, key) ?? {})
      )
        return key;
    }
    if (!serverOwnedKept(advertised, echo, own(SERVER_OWNED_FIELDS, key) ?? [])) return key;
  }
  return undefined;
}

/** A table's entry for `key`, never one inherited (`__proto__`, `constructor` are keys like any other). */
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** An extension value's `info` (every value has `{ info, schema }`); a bare value is its own info. */
function infoOf(value: unknown): unknown {
  return isRecord(value) && Object.hasOwn(value, "info") ? value.info : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function without(value: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || !isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !fields.includes(key)));
}

/** Whether `actual` contains `expected`: objects key by key (more keys allowed), additive arrays as supersets. */
function contains(
  expected: unknown,
  actual: unknown,
  additive: Readonly<Record<string, number>>,
  field?: string,
): boolean {
  if (
    field !== undefined &&
    Object.hasOwn(additive, field) &&
    (Array.isArray(expected) || Array.isArray(actual))
  ) {
    const want = asList(expected);
    const got = asList(actual);
    if (want === undefined || got === undefined || got.length > (own(additive, field) ?? Infinity))
      return false;
    return want.every((item) => got.some((other) => sameJson(item, other)));
  }
  if (!isRecord(expected)) return sameJson(expected, actual);
  if (!isRecord(actual)) return false;
  return Object.entries(expected).every(([key, value]) =>
    Object.hasOwn(actual, key) ? contains(value, actual[key], additive, key) : value === undefined,
  );
}

function asList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  return value === null || value === undefined || typeof value === "object" ? undefined : [value];
}

function serverOwnedKept(advertised: unknown, echo: unknown, fields: readonly string[]): boolean {
  if (!isRecord(echo)) return true;
  const offered = isRecord(advertised) ? advertised : {};
  return fields.every(
    (field) =>
      echo[field] === undefined || (Object.hasOwn(offered, field) && sameJson(offered[field], echo[field])),
  );
}
