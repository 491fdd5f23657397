import { CLAIM_PARTS, type ClaimPart } from "../Claim.js";
import type { MaskTag, RevelationMask } from "./RevelationMask.js";
import type { WireIntent } from "./WireIntent.js";

/** How an intent breaks its mask: the first part whose form is not the tag's. */
export interface MaskViolation {
  part: ClaimPart;
  /** The mask's tag for the part. */
  expected: MaskTag;
  /** The form the part came in (`Open`: in clear). */
  received: MaskTag;
}

/**
 * Does each part of the intent come in the form its mask tag says (Open: in clear; Commit, Encrypted,
 * ZK: hidden so)? And a masked intent is a ServiceAuthSigner's (signed over its exact bytes): a
 * subject in clear must then be a bare key. Checked by the gateway and again by the facilitator.
 */
export function checkIntentForm(mask: RevelationMask, wire: WireIntent): MaskViolation | undefined {
  for (const part of CLAIM_PARTS) {
    const received = wire.hidden[part]?.tag ?? "Open";
    if (received !== mask.intent[part]) return { part, expected: mask.intent[part], received };
  }
  return undefined;
}

/** Whether the mask hides any intent part (then only a ServiceAuthSigner key may sign the intent). */
export function masksIntent(mask: RevelationMask): boolean {
  return CLAIM_PARTS.some((part) => mask.intent[part] !== "Open");
}
