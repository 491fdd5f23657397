import { decodeBase64 } from "../decodeBase64.js";
import { CborError } from "./CborError.js";
import type { Quantity } from "./Claim.js";
import { PREDICATE_REVOKES } from "./profile.js";
import { receiptDigestOf } from "./receiptCommitments.js";
import {
  decodeRestrictedReceipt,
  restrictedReceiptCommitments,
  type RestrictedReceipt,
} from "./RestrictedReceipt.js";
import { decodeSettlementReceipt, receiptDigest, type SettlementReceipt } from "./SettlementReceipt.js";
import { openSignedClaim, signClaim, type SignedClaim } from "./SignedClaim.js";
import type { SigningKey } from "./signatures.js";
import { verifyReceipt } from "./verifyReceipt.js";

export interface RevokeReceiptOptions {
  /** When revoked, epoch ms (the revocation's `time`, in whole seconds). */
  now: number;
  /** The amount refunded (default: the whole receipt's quantity); same currency, at most the amount paid. */
  refund?: Quantity;
}

/**
 * Facilitator side, on a refund: the signed claim (v0.3) `[subject = the receipt's payer key,
 * "revokes", object = the receipt digest "sha256:<hex>", quantity = the refund, time = revoked at,
 * context = the intent digest (the receipt claim's own context)]`, signed by `key`. The object names
 * this receipt and every restriction of it; the context ties the revocation to the payment (one
 * refund per intent in the facilitator's books). Throws {@link CborError} for a receipt `key` did not
 * sign, a refund in another currency, of zero, or over the amount paid.
 */
export function revokeReceipt(
  receipt: SettlementReceipt | Uint8Array,
  key: SigningKey,
  options: RevokeReceiptOptions,
): SignedClaim {
  const verdict = verifyReceipt(receipt, key.publicKey);
  if (!verdict.valid) throw new CborError("wrong_value", verdict.reason, "receipt");
  const paid = verdict.claim.quantity;
  const refund = options.refund ?? paid;
  if (refund.currency !== paid.currency || refund.amount <= 0n || refund.amount > paid.amount) {
    throw new CborError(
      "wrong_value",
      `a refund is 1 to ${paid.amount} ${paid.currency} units, got ${refund.amount} ${refund.currency}`,
      "refund",
    );
  }
  const decoded = receipt instanceof Uint8Array ? decodeSettlementReceipt(receipt) : receipt;
  return signClaim(key, {
    subject: verdict.claim.subject,
    predicate: PREDICATE_REVOKES,
    object: receiptDigest(decoded),
    quantity: { currency: refund.currency, amount: refund.amount },
    time: Math.floor(options.now / 1000),
    context: verdict.claim.context,
  });
}

/**
 * Whether one of `revocations` revokes `receipt` (full or restricted: both have the same digest).
 * Only a well-formed `revokes` claim signed by `facilitatorKey` whose object is the receipt's digest
 * counts; anything else in the list is ignored, never thrown. Throws {@link CborError} only for a
 * receipt whose digest cannot be computed (malformed).
 */
export function isRevoked(
  receipt: SettlementReceipt | RestrictedReceipt | Uint8Array | string,
  revocations: Iterable<SignedClaim | Uint8Array | string>,
  facilitatorKey: Uint8Array,
): boolean {
  const digest = digestOfAnyReceipt(receipt);
  for (const revocation of revocations) {
    const verdict = openSignedClaim(revocation, {
      predicate: PREDICATE_REVOKES,
      trustedSigners: [facilitatorKey],
    });
    if (verdict.valid && verdict.claim.object === digest) return true;
  }
  return false;
}

function digestOfAnyReceipt(receipt: SettlementReceipt | RestrictedReceipt | Uint8Array | string): string {
  const input = typeof receipt === "string" ? decodeBase64(receipt) : receipt;
  if (input instanceof Uint8Array) {
    let full: SettlementReceipt;
    try {
      full = decodeSettlementReceipt(input);
    } catch {
      return receiptDigestOf(restrictedReceiptCommitments(decodeRestrictedReceipt(input)));
    }
    return receiptDigest(full);
  }
  return "parts" in input ? receiptDigestOf(restrictedReceiptCommitments(input)) : receiptDigest(input);
}
