import { CborError } from "./CborError.js";
import { CLAIM_PARTS, isClaimPart, type ClaimPart } from "./Claim.js";
import { decodeCanonical } from "./decodeCanonical.js";
import type { ReceiptOpenings, RestrictedReceipt } from "./RestrictedReceipt.js";
import { receiptCommitments, type SettlementReceipt } from "./SettlementReceipt.js";

export interface RestrictedReceiptWithOpenings {
  /** The receipt with the parts not in `reveal` replaced by their commitments. */
  receipt: RestrictedReceipt;
  /** Value and salt of each hidden part: hand them to an auditor to open the hidden parts. */
  openings: ReceiptOpenings;
}

/**
 * Holder side, without the facilitator: keep the claim parts named in `reveal` and replace the
 * others by their commitments. The facilitator's signature still covers the result (it signed the
 * commitments), so {@link verifyRestrictedReceipt} accepts it. Throws {@link CborError} for a
 * malformed receipt or an unknown part name; does not check the signature (verifyReceipt does).
 */
export function restrictReceipt(
  receipt: SettlementReceipt,
  reveal: Iterable<ClaimPart>,
): RestrictedReceiptWithOpenings {
  const kept = new Set<string>();
  for (const name of reveal) {
    if (!isClaimPart(name))
      throw new CborError("wrong_value", `unknown claim part ${JSON.stringify(name)}`, "reveal");
    kept.add(name);
  }
  const { commitments } = receiptCommitments(receipt);
  // The parts as the claim's bytes decode (integers as numbers when safe), so that a restricted
  // receipt decodes to exactly what it was encoded from.
  const values = decodeCanonical(receipt.claim, { expect: "array" });
  const openings: ReceiptOpenings = {};
  const parts = CLAIM_PARTS.map((name, index) => {
    const revealed = {
      salt: receipt.salts[index] as Uint8Array,
      value: values[index] as (typeof values)[number],
    };
    if (kept.has(name)) return revealed;
    openings[name] = revealed;
    return { commitment: commitments[index] as Uint8Array };
  });
  return { receipt: { parts, signature: receipt.signature, signer: receipt.signer }, openings };
}
