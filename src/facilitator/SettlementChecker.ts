import type { PaymentPayload, PaymentRequirements } from "../protocol/schemas.js";

/** What the chain says about a payment whose settlement outcome is unknown (a cut or timed-out `/settle`). */
export type SettlementCheck =
  /** The payment moved to the payee; `transaction` is its hash ("" when it could not be found). */
  | { state: "settled"; transaction: string }
  /** It did not and never will (expired unused, cancelled, or used for something else): safe to release. */
  | { state: "not_settled"; reason: string }
  /** Cannot tell yet (unused but still valid, no RPC for the network, RPC failed). */
  | { state: "pending"; reason: string };

/** Finds out whether a payment was settled, by asking the chain rather than the facilitator. */
export interface SettlementChecker {
  check(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettlementCheck>;
  /** Whether this checker can say anything about payments on `network`. */
  covers(network: string): boolean;
}

/** One checker over several (EVM, Solana): each payment goes to the first that covers its network. */
export function firstCovering(checkers: readonly SettlementChecker[]): SettlementChecker {
  return {
    covers: (network) => checkers.some((checker) => checker.covers(network)),
    check: (payment, requirements) =>
      checkers.find((checker) => checker.covers(requirements.network))?.check(payment, requirements) ??
      Promise.resolve({ state: "pending", reason: `no rpcUrl for ${requirements.network}` }),
  };
}
