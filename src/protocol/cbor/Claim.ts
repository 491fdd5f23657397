import { CborError } from "./CborError.js";
import { asUint } from "./CborFields.js";
import { CborTag, type CborValue } from "./CborValue.js";
import { decodeCanonical } from "./decodeCanonical.js";
import { encodeCanonical } from "./encodeCanonical.js";
import {
  ED25519_PUBLIC_KEY_BYTES,
  ML_DSA_65_PUBLIC_KEY_BYTES,
  UNQUANTIFIED_PREDICATES,
  isCurrency,
  isPredicate,
  type Currency,
  type Predicate,
} from "./profile.js";

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
  /** A public key: 32 bytes (Ed25519) or 1952 bytes (ML-DSA-65). */
  subject: Uint8Array;
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

export function encodeClaim(claim: Claim): Uint8Array {
  checkClaim(claim);
  return encodeCanonical([
    claim.subject,
    claim.predicate,
    claim.object,
    claim.quantity === null ? null : [claim.quantity.currency, claim.quantity.amount],
    new CborTag(1, claim.time),
    claim.context,
  ]);
}

export function decodeClaim(bytes: Uint8Array): Claim {
  const value = decodeCanonical(bytes);
  if (!Array.isArray(value) || value.length !== 6) {
    throw new CborError("wrong_type", "expected an array of six parts", WHAT);
  }
  const [subject, predicate, object, quantity, time, context] = value as [
    CborValue,
    CborValue,
    CborValue,
    CborValue,
    CborValue,
    CborValue,
  ];
  if (!(subject instanceof Uint8Array)) throw wrong("subject", "a byte string");
  if (!isPredicate(predicate)) throw wrong("predicate", "a v0.3 predicate");
  if (typeof object !== "string") throw wrong("object", "text");
  if (!(time instanceof CborTag) || time.tag !== 1 || typeof time.value !== "number")
    throw wrong("time", "tag 1 seconds");
  if (!(context instanceof Uint8Array)) throw wrong("context", "a byte string");
  const claim: Claim = {
    subject,
    predicate,
    object,
    quantity: quantity === null ? null : decodeQuantity(quantity),
    time: time.value,
    context,
  };
  checkClaim(claim);
  return claim;
}

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
  if (
    claim.subject.length !== ED25519_PUBLIC_KEY_BYTES &&
    claim.subject.length !== ML_DSA_65_PUBLIC_KEY_BYTES
  ) {
    throw new CborError(
      "wrong_value",
      "expected a 32-byte Ed25519 or 1952-byte ML-DSA-65 key",
      `${WHAT}.subject`,
    );
  }
  const unquantified = UNQUANTIFIED_PREDICATES.includes(claim.predicate);
  if (unquantified !== (claim.quantity === null)) {
    throw new CborError(
      "wrong_value",
      unquantified ? `a "${claim.predicate}" claim has no quantity (null)` : "expected [currency, amount]",
      `${WHAT}.quantity`,
    );
  }
  if (claim.context.length !== 32)
    throw new CborError("wrong_value", "expected 32 bytes (SHA-256)", `${WHAT}.context`);
  if (!Number.isSafeInteger(claim.time) || claim.time < 0) {
    throw new CborError("wrong_value", "expected whole seconds since the epoch", `${WHAT}.time`);
  }
}

function wrong(part: string, expected: string): CborError {
  return new CborError("wrong_type", `expected ${expected}`, `${WHAT}.${part}`);
}
