import { decodeSignedClaim, encodeSignedClaim, type SignedClaim } from "./SignedClaim.js";

/**
 * `PAYMENT-RESPONSE` in this format (our profile): a claim "was_paid", signed by the facilitator —
 * a {@link SignedClaim} whose signer is the facilitator's receipt key.
 */
export type SettlementReceipt = SignedClaim;

export function encodeSettlementReceipt(receipt: SettlementReceipt): Uint8Array {
  return encodeSignedClaim(receipt);
}

export function decodeSettlementReceipt(bytes: Uint8Array): SettlementReceipt {
  return decodeSignedClaim(bytes, "SettlementReceipt");
}
