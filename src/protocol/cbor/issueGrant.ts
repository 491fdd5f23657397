import { randomBytes } from "node:crypto";
import type { Quantity } from "./Claim.js";
import { formatScope, type DelegationScope } from "./DelegationScope.js";
import { PREDICATE_MAY_PAY } from "./profile.js";
import { encodeSignedClaim, signClaim } from "./SignedClaim.js";
import type { SigningKey } from "./signatures.js";

export interface GrantTerms {
  /** The delegate's public key (Ed25519 or ML-DSA-65): the grant's subject. */
  delegate: Uint8Array;
  /** What the delegate may pay: any merchant, one merchant, or one service of one merchant. */
  scope: DelegationScope;
  /** The most the delegate may spend under this grant, over all its payments. */
  cap: Quantity;
  /** Until when the grant is valid, in seconds since the epoch. */
  validUntil: number;
  /** 32 bytes telling two otherwise equal grants apart (random when omitted). */
  nonce?: Uint8Array;
}

/**
 * A delegation grant (v0.3): the canonical CBOR of the SignedClaim "delegate may_pay scope up to cap
 * until validUntil, nonce", signed by the delegator. A `delegation_chain` lists such grants from the
 * root (the payer of record) to the agent that signs the intent.
 */
export function issueGrant(delegatorKey: SigningKey, terms: GrantTerms): Uint8Array {
  const nonce = terms.nonce ?? new Uint8Array(randomBytes(32));
  if (nonce.length !== 32) throw new RangeError("a grant nonce is 32 bytes");
  return encodeSignedClaim(
    signClaim(delegatorKey, {
      subject: terms.delegate,
      predicate: PREDICATE_MAY_PAY,
      object: formatScope(terms.scope),
      quantity: terms.cap,
      time: terms.validUntil,
      context: nonce,
    }),
  );
}
