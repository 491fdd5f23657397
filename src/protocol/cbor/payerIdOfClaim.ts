import type { Claim } from "./Claim.js";
import { payerIdOf } from "./signatures.js";
import { compareBytes, hexOfBytes } from "../../common/bytes.js";

/**
 * How a claim's subject is named as a payer: a ServiceAuthSigner key as `ed25519:<sha256 hex>` (see
 * payerIdOf); another backend's identity as `<signer id>:0x<identity hex>` (e.g.
 * `starknet-account:0x04…`, `evm:0xab…`), the form the facilitator's books and the paid events use.
 */
export function payerIdOfClaim(claim: Pick<Claim, "subject" | "signer">): string {
  if (claim.signer === undefined) return payerIdOf(claim.subject);
  return `${claim.signer}:0x${hexOfBytes(claim.subject)}`;
}

/** Whether two claims name the same subject: the same backend and the same identity bytes. */
export function sameSubject(
  a: Pick<Claim, "subject" | "signer">,
  b: Pick<Claim, "subject" | "signer">,
): boolean {
  return a.signer === b.signer && compareBytes(a.subject, b.subject) === 0;
}
