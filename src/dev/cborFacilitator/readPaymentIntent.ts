import type { QuantifiedClaim } from "../../protocol/cbor/Claim.js";
import type { ClaimPart } from "../../protocol/cbor/Claim.js";
import { checkIntentForm, masksIntent } from "../../protocol/cbor/masks/checkIntentForm.js";
import type { MaskHpkeKey } from "../../protocol/cbor/masks/maskHpke.js";
import { hidesSubject } from "../../protocol/cbor/masks/maskPadding.js";
import { openWireIntent } from "../../protocol/cbor/masks/openWireIntent.js";
import { resolveMask, type RevelationMask } from "../../protocol/cbor/masks/RevelationMask.js";
import { decodeWireIntent } from "../../protocol/cbor/masks/WireIntent.js";
import type { PaymentRequest } from "../../protocol/cbor/PaymentRequest.js";
import type { PaymentSignature } from "../../protocol/cbor/PaymentSignature.js";
import { verifySignature } from "../../protocol/cbor/signatures.js";

/** The intent in clear (a ZK part's value never travels: a ZK `time` stays unknown). */
export type ReadIntent = {
  ok: true;
  claim: Omit<QuantifiedClaim, "time"> & { time?: number | undefined };
  mask: RevelationMask;
  /** Salts of the parts the payer hid (the receipt commits to the same part with the same salt). */
  salts: Partial<Record<ClaimPart, Uint8Array>>;
  /** Whether the signature was already checked here (a masked intent's: ServiceAuthSigner only). */
  signatureChecked: boolean;
};

/**
 * The local facilitator's reading of a payment's intent under the mask its PaymentRequest names: the
 * mask resolved (by the document that came with the request), the intent's form checked against it,
 * the hidden parts opened with the facilitator's HPKE key. A masked intent must be a ServiceAuthSigner
 * key's (signed over the exact `payment_intent` bytes) and carry no delegation chain (v0.3).
 */
export async function readPaymentIntent(
  request: PaymentRequest,
  payment: PaymentSignature,
  maskDocument: Uint8Array | undefined,
  key: MaskHpkeKey | undefined,
): Promise<ReadIntent | { ok: false; reason: string }> {
  let mask: RevelationMask;
  try {
    mask = resolveMask(request.revelationMaskRef, maskDocument);
  } catch (error) {
    return { ok: false, reason: `unknown_mask: ${(error as Error).message}` };
  }
  let wire;
  try {
    wire = decodeWireIntent(payment.paymentIntent);
  } catch (error) {
    return { ok: false, reason: `invalid_payment: ${(error as Error).message}` };
  }
  if (!masksIntent(mask)) {
    const violation = checkIntentForm(mask, wire);
    if (violation !== undefined) return { ok: false, reason: `mask_violation: ${violation.part} is hidden` };
    if (payment.openings !== undefined)
      return { ok: false, reason: "mask_violation: openings without a mask" };
    return { ok: true, claim: wire.view as QuantifiedClaim, mask, salts: {}, signatureChecked: false };
  }
  if (key === undefined) return { ok: false, reason: "unknown_mask: no HPKE key to open it" };
  const opened = await openWireIntent(wire, mask, payment.openings, key);
  if (!opened.ok) return opened;
  const { subject, signer } = opened.claim;
  if (subject === undefined || signer !== undefined) {
    return { ok: false, reason: "mask_violation: a masked intent is signed by a ServiceAuthSigner key" };
  }
  if (payment.delegationChain !== undefined) {
    return { ok: false, reason: "mask_violation: no delegation chain with a masked intent (v0.3)" };
  }
  // A hidden payer's signature comes sealed in the openings, never in clear.
  const signature = hidesSubject(mask) ? opened.signature : payment.signature;
  if (hidesSubject(mask) && payment.signature !== undefined)
    return { ok: false, reason: "mask_violation: a signature in clear with a hidden subject" };
  if (signature === undefined || !verifySignature(subject, payment.paymentIntent, signature)) {
    return { ok: false, reason: "invalid_signature" };
  }
  return { ok: true, claim: { ...opened.claim, subject }, mask, salts: opened.salts, signatureChecked: true };
}
