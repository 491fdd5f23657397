import { countsGrants, type PaymentLedger } from "../../ledger/PaymentLedger.js";
import {
  checkDelegationChain,
  type DelegationLimits,
  type DelegationRefusal,
} from "../../protocol/cbor/checkDelegationChain.js";
import type { QuantifiedClaim } from "../../protocol/cbor/Claim.js";
import type { PaymentRequest } from "../../protocol/cbor/PaymentRequest.js";
import type { PaymentSignature } from "../../protocol/cbor/PaymentSignature.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";

/** The delegation settings in force: the limits, or `false` when chains are refused. */
export type DelegationPolicy = DelegationLimits | false;

/** A chain the gateway checked: the payer of record and the grants to charge. */
export type CheckedDelegation = Extract<ReturnType<typeof checkDelegationChain>, { ok: true }>;

/**
 * Check the payment's `delegation_chain` (none: `undefined`) against the request and the intent, or
 * throw its refusal as a `402 delegation_*`.
 */
export function checkDelegationOrRefuse(
  policy: DelegationPolicy,
  request: PaymentRequest,
  intent: QuantifiedClaim,
  payment: PaymentSignature,
  nowMs: number,
): CheckedDelegation | undefined {
  if (payment.delegationChain === undefined) return undefined;
  if (policy === false) {
    throw new GatewayError("delegation_invalid", "this gateway does not accept delegation chains", {
      details: { problem: "not_accepted" },
    });
  }
  const verdict = checkDelegationChain(payment.delegationChain, request, intent, { ...policy, nowMs });
  if (verdict.ok) return verdict;
  const { code, reason, ...details } = verdict.refusal;
  throw new GatewayError(code, `the delegation chain is refused: ${reason}`, { details: details });
}

/**
 * Charge this payment's amount to every grant of the chain in the ledger (reserved payment `id`), or
 * throw `402 delegation_cap_exceeded` when a grant's total would pass its cap. Redis down: `503
 * ledger_unavailable`. The ledger refunds the charge when the reservation is released.
 */
export async function chargeGrantsOrRefuse(
  deps: { ledger: PaymentLedger; observer: PaywallObserver; skewSeconds: number },
  id: string,
  delegation: CheckedDelegation | undefined,
  amount: bigint,
): Promise<void> {
  if (delegation === undefined) return;
  const { ledger } = deps;
  if (!countsGrants(ledger)) throw new GatewayError("internal_error", "the ledger cannot count grants");
  const grants = delegation.grants.map((grant) => ({
    id: grant.id,
    cap: grant.cap.amount,
    keepUntilMs: (grant.validUntil + deps.skewSeconds + 60) * 1000,
  }));
  let outcome: Awaited<ReturnType<typeof ledger.chargeGrants>>;
  try {
    outcome = await ledger.chargeGrants(id, { amount, grants });
  } catch (error) {
    deps.observer.ledgerError?.("charge");
    throw new GatewayError("ledger_unavailable", "the payment ledger cannot be reached; retry later", {
      cause: error,
      retryAfterSeconds: 1,
    });
  }
  if (outcome.status === "charged") return;
  const link = delegation.grants.findIndex((grant) => grant.id === outcome.grantId);
  const grant = delegation.grants[link];
  const refusal: DelegationRefusal = {
    code: "delegation_cap_exceeded",
    link,
    exceeded: "total",
    cap: { currency: grant?.cap.currency ?? "", amount: outcome.cap.toString() },
    reason: `grant ${link} has ${outcome.spent} of its ${outcome.cap} spent: not enough left for ${amount}`,
  };
  const { code, reason, ...details } = refusal;
  throw new GatewayError(code, `the delegation chain is refused: ${reason}`, {
    details: { ...details, spent: outcome.spent.toString() },
  });
}
