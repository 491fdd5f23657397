import { CborError } from "./CborError.js";
import { asUint } from "./CborFields.js";
import { CborTag, MAX_CBOR_RECORD_ITEMS, type CborValue } from "./CborValue.js";
import { decodeCanonical } from "./decodeCanonical.js";
import { encodeCanonical } from "./encodeCanonical.js";
import {
  ED25519_PUBLIC_KEY_BYTES,
  ML_DSA_65_PUBLIC_KEY_BYTES,
  SIGNER_IDENTITY_BYTES,
  STARK_FIELD_PRIME,
  UNQUANTIFIED_PREDICATES,
  isCurrency,
  isPredicate,
  isSignerId,
  type Currency,
  type Predicate,
  type SignerId,
} from "./profile.js";
import { hexOfBytes } from "../../common/bytes.js";

/** An amount in a currency's smallest unit. */
export interface Quantity {
  currency: Currency;
  amount: bigint;
}

/**
 * The six-part claim `[subject, predicate, object, quantity, time, context]` — this project's v0.3
 * profile of the claim grammar. An intent reads "subject pays object quantity at time, answering
 * context"; a receipt reads "object was_paid quantity by subject at time, for the intent context".
 * The other predicates (`is_human`, `may_pay`, `revokes`) are listed in profile.ts and docs/cbor.md.
 */
export interface Claim {
  /**
   * Who: a ServiceAuthSigner public key, 32 bytes (Ed25519) or 1952 bytes (ML-DSA-65); or, with
   * `signer`, the identity that backend names (a Starknet account or Stark key, an EVM address…).
   */
  subject: Uint8Array;
  /**
   * The signer backend the subject belongs to; absent = `service-auth` (the bare-key form). On the wire
   * a named backend's subject is `[signer, subject]` (profile.ts, SIGNER_IDS).
   */
  signer?: Exclude<SignerId, "service-auth"> | undefined;
  predicate: Predicate;
  /** Text: the merchant pseudonym in an intent or a receipt. */
  object: string;
  /** `[currency, amount]`; `null` exactly for the predicates without one (`is_human`). */
  quantity: Quantity | null;
  /** Seconds since the epoch: when signed (intent), settled (receipt), revoked; or valid until (grants, humanity). */
  time: number;
  /** 32 bytes: SHA-256 of the PaymentRequest answered (intent) or of the intent bytes (receipt). */
  context: Uint8Array;
}

/** A claim whose predicate carries a quantity (`pays`, `was_paid`, `may_pay`, `revokes`). */
export type QuantifiedClaim = Claim & { quantity: Quantity };

const WHAT = "claim";

/** The six parts of a claim, in their order in the CBOR array. */
export const CLAIM_PARTS = ["subject", "predicate", "object", "quantity", "time", "context"] as const;
export type ClaimPart = (typeof CLAIM_PARTS)[number];

export function isClaimPart(value: unknown): value is ClaimPart {
  return (CLAIM_PARTS as readonly unknown[]).includes(value);
}

export function encodeClaim(claim: Claim): Uint8Array {
  checkClaim(claim);
  return encodeCanonical(claimPartValues(claim));
}

/** The six parts as the CBOR values the claim's array holds, in order. */
export function claimPartValues(claim: Claim): CborValue[] {
  return [
    claim.signer === undefined ? claim.subject : [claim.signer, claim.subject],
    claim.predicate,
    claim.object,
    claim.quantity === null ? null : [claim.quantity.currency, claim.quantity.amount],
    new CborTag(1, claim.time),
    claim.context,
  ];
}

export function decodeClaim(bytes: Uint8Array): Claim {
  const value = decodeCanonical(bytes, { expect: "array", maxItems: MAX_CBOR_RECORD_ITEMS, what: WHAT });
  if (value.length !== 6) {
    throw new CborError("wrong_type", "expected an array of six parts", WHAT);
  }
  const claim = {} as Record<ClaimPart, unknown> & { signer?: SignerId };
  CLAIM_PARTS.forEach((part, index) => {
    claim[part] = readClaimPart(part, value[index] as CborValue);
  });
  const { signer } = readSubject(value[0] as CborValue);
  if (signer !== undefined) claim.signer = signer;
  checkClaim(claim as unknown as Claim);
  return claim as unknown as Claim;
}

/**
 * A claim's `subject` part: a bare byte string (a ServiceAuthSigner key, 32 or 1952 bytes) or
 * `[signer id, identity]` for another backend, its identity of that backend's length (and below the
 * Stark field prime for the layer-2 ones). `["service-auth", key]` is refused: a key is written bare.
 */
export function readSubject(value: CborValue): {
  subject: Uint8Array;
  signer?: Exclude<SignerId, "service-auth">;
} {
  if (value instanceof Uint8Array) {
    if (value.length !== ED25519_PUBLIC_KEY_BYTES && value.length !== ML_DSA_65_PUBLIC_KEY_BYTES) {
      throw new CborError(
        "wrong_value",
        "expected a 32-byte Ed25519 or 1952-byte ML-DSA-65 key",
        `${WHAT}.subject`,
      );
    }
    return { subject: value };
  }
  if (!Array.isArray(value) || value.length !== 2 || !(value[1] instanceof Uint8Array)) {
    throw wrong("subject", "a byte string, or [signer id, identity bytes]");
  }
  const [signer, identity] = value as [CborValue, Uint8Array];
  if (!isSignerId(signer)) throw new CborError("wrong_value", "unknown signer id", `${WHAT}.subject[0]`);
  if (signer === "service-auth") {
    throw new CborError(
      "wrong_value",
      "a service-auth key is written bare, not in an array",
      `${WHAT}.subject`,
    );
  }
  const lengths = SIGNER_IDENTITY_BYTES[signer];
  if (!lengths.includes(identity.length)) {
    throw new CborError(
      "wrong_value",
      `a ${signer} identity is ${lengths.join(" or ")} bytes`,
      `${WHAT}.subject[1]`,
    );
  }
  if (signer.startsWith("starknet-") && BigInt(`0x${hexOfBytes(identity)}`) >= STARK_FIELD_PRIME) {
    throw new CborError(
      "wrong_value",
      "a Starknet identity is a felt (below the field prime)",
      `${WHAT}.subject[1]`,
    );
  }
  return { subject: identity, signer };
}

/**
 * One part of a claim from its CBOR value, checked on its own (type, key and digest lengths, whole
 * seconds); what ties parts together (a quantity exactly when the predicate has one) is checked on
 * whole claims only. Throws {@link CborError} naming `claim.<part>`.
 */
export function readClaimPart<P extends ClaimPart>(part: P, value: CborValue): Claim[P] {
  return PART_READERS[part](value) as Claim[P];
}

const PART_READERS: { [P in ClaimPart]: (value: CborValue) => Claim[P] } = {
  subject: (value) => readSubject(value).subject,
  predicate: (value) => {
    if (!isPredicate(value)) throw wrong("predicate", "a v0.3 predicate");
    return value;
  },
  object: (value) => {
    if (typeof value !== "string") throw wrong("object", "text");
    return value;
  },
  quantity: (value) => (value === null ? null : decodeQuantity(value)),
  time: (value) => {
    if (!(value instanceof CborTag) || value.tag !== 1 || typeof value.value !== "number")
      throw wrong("time", "tag 1 seconds");
    checkTime(value.value);
    return value.value;
  },
  context: (value) => {
    if (!(value instanceof Uint8Array)) throw wrong("context", "a byte string");
    checkContext(value);
    return value;
  },
};

/** Decode a claim that must carry a quantity (an intent, a receipt, a grant, a revocation). */
export function decodeQuantifiedClaim(bytes: Uint8Array): QuantifiedClaim {
  const claim = decodeClaim(bytes);
  if (claim.quantity === null) throw wrong("quantity", "[currency, amount]");
  return claim as QuantifiedClaim;
}

function decodeQuantity(quantity: CborValue): Quantity {
  if (!Array.isArray(quantity) || quantity.length !== 2) throw wrong("quantity", "[currency, amount]");
  const [currency, amount] = quantity as [CborValue, CborValue];
  const units = asUint(amount);
  if (!isCurrency(currency) || units === undefined) throw wrong("quantity", "[USDC|STRK|strkBTC, uint]");
  return { currency, amount: units };
}

function checkClaim(claim: Claim): void {
  readSubject(claim.signer === undefined ? claim.subject : [claim.signer, claim.subject]);
  const unquantified = UNQUANTIFIED_PREDICATES.includes(claim.predicate);
  if (unquantified !== (claim.quantity === null)) {
    throw new CborError(
      "wrong_value",
      unquantified ? `a "${claim.predicate}" claim has no quantity (null)` : "expected [currency, amount]",
      `${WHAT}.quantity`,
    );
  }
  checkContext(claim.context);
  checkTime(claim.time);
}

function checkContext(context: Uint8Array): void {
  if (context.length !== 32)
    throw new CborError("wrong_value", "expected 32 bytes (SHA-256)", `${WHAT}.context`);
}

function checkTime(time: number): void {
  if (!Number.isSafeInteger(time) || time < 0) {
    throw new CborError("wrong_value", "expected whole seconds since the epoch", `${WHAT}.time`);
  }
}

function wrong(part: string, expected: string): CborError {
  return new CborError("wrong_type", `expected ${expected}`, `${WHAT}.${part}`);
}
