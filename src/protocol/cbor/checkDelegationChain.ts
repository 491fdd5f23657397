import { sha256Hex } from "../../common/digests.js";
import { hexOfBytes } from "../../common/bytes.js";
import type { QuantifiedClaim, Quantity } from "./Claim.js";
import { parseScope, scopeCovers, type DelegationScope } from "./DelegationScope.js";
import type { PaymentRequest } from "./PaymentRequest.js";
import { PREDICATE_MAY_PAY } from "./profile.js";
import { decodeSignedClaim, openSignedClaim, sameKey, type SignedClaim } from "./SignedClaim.js";

/** Defaults of the delegation settings, written once. */
export const DELEGATION_DEFAULTS = {
  /** Grants in one chain, root first. */
  maxChainLength: 4,
  /** Bytes of all the grants of one chain together (four ML-DSA-65 grants are about 29 KB). */
  maxChainBytes: 32 * 1024,
} as const;

export interface DelegationLimits {
  maxChainLength: number;
  maxChainBytes: number;
  /** Clock difference tolerated on a grant's expiry, in seconds. */
  skewSeconds: number;
}

/** One checked grant of a chain. */
export interface CheckedGrant {
  /** Hex SHA-256 of the grant's claim bytes: how the ledger counts its spending. */
  id: string;
  delegator: Uint8Array;
  delegate: Uint8Array;
  scope: DelegationScope;
  cap: Quantity;
  /** Seconds since the epoch. */
  validUntil: number;
}

export type DelegationProblem =
  "malformed" | "bad_signature" | "broken_link" | "cycle" | "too_long" | "wrong_subject";

export type DelegationRefusal =
  | { code: "delegation_invalid"; problem: DelegationProblem; link?: number; reason: string }
  | { code: "delegation_expired"; link: number; validUntil: number; reason: string }
  | { code: "delegation_out_of_scope"; link: number; scope: string; reason: string }
  | {
      code: "delegation_cap_exceeded";
      link: number;
      /** `currency`: the cap is in another currency; `amount`: below this price; `total`: spent (the ledger's). */
      exceeded: "currency" | "amount" | "total";
      cap: { currency: string; amount: string };
      reason: string;
    };

export type DelegationVerdict =
  | {
      ok: true;
      /** The chain's root: the first grant's signer, the payer of record. */
      root: Uint8Array;
      /** Root first. */
      grants: CheckedGrant[];
    }
  | { ok: false; refusal: DelegationRefusal };

/**
 * Check a `delegation_chain` against the intent it carries and the PaymentRequest it answers (v0.3).
 * Grants run from the root to the agent: grant i is signed by its delegator and names its delegate as
 * subject; grant i+1's signer is grant i's subject; the last subject is the intent's. Refused, in
 * this order: too many grants or bytes; a grant that is not a canonical signed `may_pay` claim with a
 * scope; a signature that does not verify; a broken link; a key twice (cycle); the last subject not the
 * intent's; then per grant: expired (past `validUntil` + skew), out of scope, cap in another currency
 * or below this payment's amount. Spending across payments is the ledger's to count.
 */
export function checkDelegationChain(
  chain: readonly Uint8Array[],
  request: PaymentRequest,
  intent: QuantifiedClaim,
  limits: DelegationLimits & { nowMs: number },
): DelegationVerdict {
  const bytes = chain.reduce((sum, grant) => sum + grant.length, 0);
  if (chain.length === 0) return invalid("malformed", "the delegation chain is empty");
  if (chain.length > limits.maxChainLength || bytes > limits.maxChainBytes) {
    return invalid(
      "too_long",
      `the delegation chain has ${chain.length} grants in ${bytes} bytes; at most ${limits.maxChainLength} grants in ${limits.maxChainBytes} bytes`,
    );
  }
  const grants: CheckedGrant[] = [];
  for (const [link, grant] of chain.entries()) {
    let signed: SignedClaim;
    try {
      signed = decodeSignedClaim(grant, `delegation_chain[${link}]`);
    } catch (error) {
      return invalid("malformed", `grant ${link}: ${(error as Error).message}`, link);
    }
    const opened = openSignedClaim(signed, { predicate: PREDICATE_MAY_PAY });
    if (!opened.valid) {
      const problem = opened.problem === "bad_signature" ? "bad_signature" : "malformed";
      return invalid(problem, `grant ${link}: ${opened.reason}`, link);
    }
    const { claim } = opened;
    const scope = parseScope(claim.object);
    if (scope === undefined || claim.quantity === null) {
      return invalid("malformed", `grant ${link}: the object is not a delegation scope`, link);
    }
    grants.push({
      id: sha256Hex(signed.claim),
      delegator: opened.signer,
      delegate: claim.subject,
      scope,
      cap: claim.quantity,
      validUntil: claim.time,
    });
  }
  for (let link = 0; link + 1 < grants.length; link++) {
    if (!sameKey((grants[link] as CheckedGrant).delegate, (grants[link + 1] as CheckedGrant).delegator)) {
      return invalid(
        "broken_link",
        `grant ${link + 1} is not signed by the delegate of grant ${link}`,
        link + 1,
      );
    }
  }
  const keys = [(grants[0] as CheckedGrant).delegator, ...grants.map((grant) => grant.delegate)];
  const seen = new Set<string>();
  for (const [index, key] of keys.entries()) {
    const hex = hexOfBytes(key);
    if (seen.has(hex)) return invalid("cycle", "a key appears twice in the delegation chain", index - 1);
    seen.add(hex);
  }
  if (!sameKey((grants.at(-1) as CheckedGrant).delegate, intent.subject)) {
    return invalid(
      "wrong_subject",
      "the last grant's delegate is not the intent's subject",
      grants.length - 1,
    );
  }
  const nowSeconds = Math.floor(limits.nowMs / 1000);
  for (const [link, grant] of grants.entries()) {
    if (grant.validUntil + limits.skewSeconds < nowSeconds) {
      return refuse({
        code: "delegation_expired",
        link,
        validUntil: grant.validUntil,
        reason: `grant ${link} expired at ${new Date(grant.validUntil * 1000).toISOString()}`,
      });
    }
  }
  for (const [link, grant] of grants.entries()) {
    if (!scopeCovers(grant.scope, request.merchantPseudonym, request.serviceId)) {
      return refuse({
        code: "delegation_out_of_scope",
        link,
        scope: describeScope(grant.scope),
        reason: `grant ${link} does not cover ${request.merchantPseudonym} / ${request.serviceId}`,
      });
    }
  }
  for (const [link, grant] of grants.entries()) {
    if (grant.cap.currency !== request.currency || grant.cap.amount < request.amount) {
      return refuse({
        code: "delegation_cap_exceeded",
        link,
        exceeded: grant.cap.currency !== request.currency ? "currency" : "amount",
        cap: { currency: grant.cap.currency, amount: grant.cap.amount.toString() },
        reason:
          grant.cap.currency !== request.currency
            ? `grant ${link} caps ${grant.cap.currency}, not ${request.currency}`
            : `grant ${link} caps ${grant.cap.amount} ${grant.cap.currency}, below this payment's ${request.amount}`,
      });
    }
  }
  return { ok: true, root: (grants[0] as CheckedGrant).delegator, grants };
}

/** A scope as it reads in a refusal's details. */
function describeScope(scope: DelegationScope): string {
  if (scope.kind === "any") return "*";
  return scope.kind === "merchant" ? scope.merchant : `${scope.merchant} / ${scope.service}`;
}

function invalid(problem: DelegationProblem, reason: string, link?: number): DelegationVerdict {
  return refuse({ code: "delegation_invalid", problem, reason, ...(link === undefined ? {} : { link }) });
}

function refuse(refusal: DelegationRefusal): DelegationVerdict {
  return { ok: false, refusal };
}
