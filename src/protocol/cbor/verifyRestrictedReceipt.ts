import { decodeBase64 } from "../decodeBase64.js";
import { CLAIM_PARTS, readClaimPart, type Claim } from "./Claim.js";
import { PREDICATE_WAS_PAID } from "./profile.js";
import { commitClaimPart, receiptDigestOf, receiptSignatureProblem } from "./receiptCommitments.js";
import {
  decodeRestrictedReceipt,
  isRevealedPart,
  type ReceiptOpenings,
  type RestrictedReceipt,
} from "./RestrictedReceipt.js";
import { sameKey } from "./SignedClaim.js";

export type RestrictedReceiptVerdict =
  | {
      valid: true;
      /** The parts shown (revealed, or opened by the openings given). */
      revealed: Partial<Claim>;
      /** The receipt's digest, `sha256:<hex>`: the same as the full receipt's. */
      digest: string;
    }
  | { valid: false; reason: string };

/**
 * Check a restricted receipt offline against the facilitator's key: each revealed part well formed
 * and its commitment recomputed from its salt, the hidden ones taken as given, and the facilitator's
 * signature over the six commitments. Returns the revealed parts. Never throws for bad input.
 */
export function verifyRestrictedReceipt(
  restricted: RestrictedReceipt | Uint8Array | string,
  facilitatorKey: Uint8Array,
): RestrictedReceiptVerdict {
  return openRestrictedReceipt(restricted, {}, facilitatorKey);
}

/**
 * The auditor's check: {@link verifyRestrictedReceipt}, and each opening (salt and value of a part the
 * restricted receipt hides) must hash to that part's commitment. Returns the revealed and opened
 * parts. An opening for a part that is not hidden is refused. Never throws for bad input.
 */
export function openRestrictedReceipt(
  restricted: RestrictedReceipt | Uint8Array | string,
  openings: ReceiptOpenings,
  facilitatorKey: Uint8Array,
): RestrictedReceiptVerdict {
  const revealed: Record<string, unknown> = {};
  const commitments: Uint8Array[] = [];
  let receipt: RestrictedReceipt;
  let digest: string;
  let mismatch: string | undefined;
  try {
    const bytes = typeof restricted === "string" ? decodeBase64(restricted) : restricted;
    receipt = bytes instanceof Uint8Array ? decodeRestrictedReceipt(bytes) : bytes;
    if (receipt.parts.length !== CLAIM_PARTS.length) throw new Error("expected six parts");
    for (const name of Object.keys(openings)) {
      if (!(CLAIM_PARTS as readonly string[]).includes(name)) throw new Error(`unknown claim part "${name}"`);
    }
    CLAIM_PARTS.forEach((name, index) => {
      const part = receipt.parts[index]!;
      const opening = openings[name];
      if (isRevealedPart(part)) {
        if (opening !== undefined) throw new Error(`an opening for ${name}, which is not hidden`);
        revealed[name] = readClaimPart(name, part.value);
        commitments.push(commitClaimPart(part.salt, part.value));
        return;
      }
      if (opening !== undefined) {
        revealed[name] = readClaimPart(name, opening.value);
        if (!sameKey(commitClaimPart(opening.salt, opening.value), part.commitment)) {
          mismatch ??= `the opening of ${name} does not match its commitment`;
        }
      }
      commitments.push(part.commitment);
    });
    digest = receiptDigestOf(commitments);
  } catch (error) {
    return { valid: false, reason: `malformed restricted receipt: ${(error as Error).message}` };
  }
  if (mismatch !== undefined) return { valid: false, reason: mismatch };
  const problem = receiptSignatureProblem(commitments, receipt.signature, receipt.signer, facilitatorKey);
  if (problem !== undefined) return { valid: false, reason: problem };
  if ("predicate" in revealed && revealed.predicate !== PREDICATE_WAS_PAID) {
    return { valid: false, reason: 'the claim is not a "was_paid" receipt' };
  }
  if ("quantity" in revealed && revealed.quantity === null) {
    return { valid: false, reason: "a receipt's quantity is [currency, amount], not null" };
  }
  return { valid: true, revealed: revealed as Partial<Claim>, digest };
}
