import { CborFields } from "./CborFields.js";
import { MAX_CBOR_RECORD_ITEMS, type CborMap, type CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";

/** The paid retry's `PAYMENT-SIGNATURE` (seed field names). */
export interface PaymentSignature {
  /** The canonical CBOR of the six-part claim, exactly the bytes signed. */
  paymentIntent: Uint8Array;
  /** Opaque to the gateway; checked by the facilitator. */
  starkProof: Uint8Array;
  /**
   * Over the exact `paymentIntent` bytes: Ed25519 (64 bytes) or ML-DSA-65 (3309 bytes), or another
   * backend's. Absent exactly when the revelation mask hides the subject: it is then sealed inside
   * `openings` (docs/cbor.md, Revelation masks).
   */
  signature?: Uint8Array | undefined;
  humanityClaim?: Uint8Array | undefined;
  delegationChain?: Uint8Array[] | undefined;
  /**
   * The openings of the intent's Commit parts (`[salt, value]` by part name), HPKE-sealed to the
   * facilitator (docs/cbor.md, Revelation masks); present exactly when the mask has a Commit part or
   * hides the subject (then they also hold the signature, padded to a fixed size).
   */
  openings?: Uint8Array | undefined;
}

const WHAT = "PaymentSignature";

export function encodePaymentSignature(payment: PaymentSignature): Uint8Array {
  const map: CborMap = new Map<string, CborValue>([
    ["payment_intent", payment.paymentIntent],
    ["stark_proof", payment.starkProof],
  ]);
  if (payment.signature !== undefined) map.set("signature", payment.signature);
  if (payment.humanityClaim !== undefined) map.set("humanity_claim", payment.humanityClaim);
  if (payment.delegationChain !== undefined) map.set("delegation_chain", payment.delegationChain);
  if (payment.openings !== undefined) map.set("openings", payment.openings);
  return encodeCanonical(map);
}

export function decodePaymentSignature(bytes: Uint8Array): PaymentSignature {
  const fields = CborFields.decode(bytes, WHAT, { maxItems: MAX_CBOR_RECORD_ITEMS });
  const payment: PaymentSignature = {
    paymentIntent: fields.bytes("payment_intent"),
    starkProof: fields.bytes("stark_proof"),
  };
  const signature = fields.optionalBytes("signature");
  if (signature !== undefined) payment.signature = signature;
  const humanityClaim = fields.optionalBytes("humanity_claim");
  const delegationChain = fields.optionalBytesArray("delegation_chain");
  if (humanityClaim !== undefined) payment.humanityClaim = humanityClaim;
  if (delegationChain !== undefined) payment.delegationChain = delegationChain;
  const openings = fields.optionalBytes("openings");
  if (openings !== undefined) payment.openings = openings;
  fields.done();
  return payment;
}
