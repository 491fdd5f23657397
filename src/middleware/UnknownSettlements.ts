import type { Facilitator } from "../facilitator/Facilitator.js";
import type { PaymentLedger } from "../ledger/PaymentLedger.js";
import { spentUntilMs } from "../ledger/paymentIdentity.js";
import { GatewayError } from "../protocol/errors.js";
import type { SettleResponse } from "../protocol/schemas.js";
import type { HeldSnapshot } from "./holdResponse.js";
import type { Logger } from "../common/Logger.js";
import type { SettlementChecker } from "../facilitator/SettlementChecker.js";
import { SettlementUnknownError } from "./SettlementUnknownError.js";
import type { Verified } from "./Verified.js";
import { releaseReservation } from "./releaseReservation.js";
import type { PaywallObserver } from "./PaywallObserver.js";

/** A payment whose settlement outcome is unknown, with the response it pays for (mode `after`). */
export interface PendingSettlement {
  routeKey: string;
  verified: Verified;
  held: HeldSnapshot | undefined;
  expiresAtMs: number;
  resolving: boolean;
}

export interface UnknownSettlementsDeps {
  facilitator: Facilitator;
  ledger: PaymentLedger;
  logger: Logger;
  observer?: PaywallObserver | undefined;
  now: () => number;
  checker?: SettlementChecker | undefined;
  checkTimeoutMs: number;
  checkIntervalMs: number;
  reservationTtlMs: number;
}

/** At most this many unknown settlements are kept for a retry; beyond, the oldest is dropped. */
const MAX_PENDING = 256;

/**
 * Settlements whose `/settle` timed out or was cut: resolved on chain when an RPC is there, otherwise kept
 * (reservation and held response, in this process) for a retry with the same payment.
 */
export class UnknownSettlements {
  private readonly pending = new Map<string, PendingSettlement>();

  constructor(private readonly deps: UnknownSettlementsDeps) {}

  /**
   * Ask the chain, for up to `checkTimeoutMs`, what a cut `/settle` did: the settlement when it happened;
   * throws `facilitator_unavailable` (released) when it did not, {@link SettlementUnknownError} when it cannot tell.
   */
  async resolve(verified: Verified, cause: GatewayError): Promise<SettleResponse> {
    const { checker } = this.deps;
    const { network } = verified.requirements;
    this.deps.logger.warn(
      { network, reason: cause.details.reason },
      "settle outcome unknown (timed out or cut): asking the chain",
    );
    if (!checker?.covers(network)) throw new SettlementUnknownError(`no rpcUrl for ${network}`, { cause });
    const deadline = this.deps.now() + this.deps.checkTimeoutMs;
    for (;;) {
      const result = await checker.check(verified.payment, verified.requirements);
      if (result.state === "settled") {
        return { success: true, transaction: result.transaction, network, payer: verified.payer };
      }
      if (result.state === "not_settled") {
        await releaseReservation(this.deps, verified.id, verified.token);
        throw new GatewayError("facilitator_unavailable", `the settlement did not happen: ${result.reason}`, {
          details: { endpoint: "settle", reason: cause.details.reason, chain: result.reason },
          retryAfterSeconds: cause.retryAfterSeconds,
          cause,
        });
      }
      if (this.deps.now() >= deadline) throw new SettlementUnknownError(result.reason, { cause });
      await new Promise((resolve) => setTimeout(resolve, this.deps.checkIntervalMs));
    }
  }

  /** Keep an unknown settlement (reservation and response) for a retry with the same payment. */
  keep(routeKey: string, verified: Verified, held: HeldSnapshot | undefined): void {
    const now = this.deps.now();
    const expiresAtMs = Math.max(
      spentUntilMs(verified.payment, now, this.deps.reservationTtlMs) - 60_000,
      now + this.deps.reservationTtlMs,
    );
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    this.pending.set(verified.id, { routeKey, verified, held, expiresAtMs, resolving: false });
  }

  /** The kept settlement of payment `id`, unless it expired (then it is released and forgotten). */
  get(id: string): PendingSettlement | undefined {
    const pending = this.pending.get(id);
    if (pending && pending.expiresAtMs <= this.deps.now() && !pending.resolving) {
      this.pending.delete(id);
      void releaseReservation(this.deps, id, pending.verified.token);
      this.deps.logger.warn({ route: pending.routeKey }, "an unknown settlement expired unresolved");
      return undefined;
    }
    return pending;
  }

  /**
   * A retry with a kept payment: ask the chain, or (EIP-3009) settle again, which the token makes safe
   * (it refuses a nonce twice, so nobody is charged twice). Resolves the settlement and forgets the
   * entry; throws `payment_in_progress`, `settlement_failed` (released) or {@link SettlementUnknownError}.
   */
  async retry(routeKey: string, pending: PendingSettlement): Promise<SettleResponse> {
    if (pending.routeKey !== routeKey || pending.resolving) {
      throw new GatewayError(
        "payment_in_progress",
        "this payment is being used by another request; retry later",
        {
          retryAfterSeconds: 1,
        },
      );
    }
    const { verified } = pending;
    pending.resolving = true;
    let settlement: SettleResponse | undefined;
    let reason = "the settlement is still unknown";
    try {
      const { checker } = this.deps;
      if (checker?.covers(verified.requirements.network)) {
        const result = await checker.check(verified.payment, verified.requirements);
        if (result.state === "settled") {
          const { network } = verified.requirements;
          settlement = { success: true, transaction: result.transaction, network, payer: verified.payer };
        } else if (result.state === "not_settled") {
          this.pending.delete(verified.id);
          await releaseReservation(this.deps, verified.id, verified.token);
          throw new GatewayError("settlement_failed", `the payment was not settled: ${result.reason}`, {
            details: { reason: result.reason },
          });
        } else reason = result.reason;
      }
      if (!settlement && verified.id.startsWith("evm|")) {
        try {
          const again = await this.deps.facilitator.settle(verified.payment, verified.requirements);
          if (again.success) settlement = again;
          else
            reason = `settling again failed: ${again.errorReason ?? "unknown"}; the first attempt may have landed`;
        } catch (error) {
          reason = `settling again failed: ${(error as Error).message}`;
        }
      }
    } finally {
      pending.resolving = false;
    }
    if (!settlement) throw new SettlementUnknownError(reason, { expiresAtMs: pending.expiresAtMs });
    this.pending.delete(verified.id);
    return settlement;
  }
}
