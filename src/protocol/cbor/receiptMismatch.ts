import type { Claim, Quantity } from "./Claim.js";
import { CLAIM_PARTS, decodeClaim, readClaimPart } from "./Claim.js";
import { PREDICATE_WAS_PAID } from "./profile.js";
import { decodeRestrictedReceipt, isRevealedPart } from "./RestrictedReceipt.js";
import { sameKey } from "./SignedClaim.js";
import { decodeSettlementReceipt } from "./SettlementReceipt.js";

type BindingParts = Pick<Claim, "predicate" | "quantity" | "context">;

/**
 * Why a receipt a facilitator answered is not about the payment settled, or `undefined` when it is:
 * a SettlementReceipt or a restricted one (a revelation mask never hides these parts), its claim
 * `was_paid`, the intent's quantity, and its context the intent's SHA-256 `intentDigest`. Reads the
 * claim only: the facilitator's signature is the payer's to check against the key it publishes.
 */
export function receiptMismatch(
  receipt: Uint8Array,
  intentDigest: Uint8Array,
  quantity: Quantity,
): string | undefined {
  let parts: BindingParts;
  try {
    parts = bindingParts(receipt);
  } catch (error) {
    return `not a receipt: ${(error as Error).message}`;
  }
  if (parts.predicate !== PREDICATE_WAS_PAID) return `its predicate is ${parts.predicate}, not was_paid`;
  if (!sameKey(parts.context, intentDigest)) return "its context is not this intent's digest";
  if (parts.quantity?.currency !== quantity.currency || parts.quantity.amount !== quantity.amount) {
    return "its quantity is not the intent's";
  }
  return undefined;
}

function bindingParts(bytes: Uint8Array): BindingParts {
  let full: Claim | undefined;
  try {
    full = decodeClaim(decodeSettlementReceipt(bytes).claim);
  } catch {
    full = undefined;
  }
  if (full !== undefined) return full;
  const { parts } = decodeRestrictedReceipt(bytes);
  const shown = <P extends keyof BindingParts>(name: P): Claim[P] => {
    const part = parts[CLAIM_PARTS.indexOf(name)];
    if (part === undefined || !isRevealedPart(part)) throw new Error(`its ${name} is hidden`);
    return readClaimPart(name, part.value);
  };
  return { predicate: shown("predicate"), quantity: shown("quantity"), context: shown("context") };
}
