import { CborFields } from "./CborFields.js";
import type { CborValue } from "./CborValue.js";
import { decodeCanonical } from "./decodeCanonical.js";
import { encodeCanonical } from "./encodeCanonical.js";

/** `PAYMENT-RESPONSE` in this format (our profile): a claim "was_paid", signed by the facilitator. */
export interface SettlementReceipt {
  /** The canonical CBOR of a six-part claim with predicate `was_paid`. */
  claim: Uint8Array;
  /** Ed25519 signature of the facilitator over the exact `claim` bytes. */
  signature: Uint8Array;
  /** The facilitator's Ed25519 public key (32 bytes). */
  signer: Uint8Array;
}

export function encodeSettlementReceipt(receipt: SettlementReceipt): Uint8Array {
  return encodeCanonical(
    new Map<string, CborValue>([
      ["claim", receipt.claim],
      ["signature", receipt.signature],
      ["signer", receipt.signer],
    ]),
  );
}

export function decodeSettlementReceipt(bytes: Uint8Array): SettlementReceipt {
  const fields = new CborFields(decodeCanonical(bytes), "SettlementReceipt");
  const receipt = {
    claim: fields.bytes("claim"),
    signature: fields.bytes("signature"),
    signer: fields.bytes("signer"),
  };
  fields.done();
  return receipt;
}
