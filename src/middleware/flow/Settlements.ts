import type { Logger } from "../../common/Logger.js";
import type { Facilitator } from "../../facilitator/Facilitator.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { spentUntilMs } from "../../ledger/paymentIdentity.js";
import { GatewayError } from "../../protocol/errors.js";
import type { SettleResponse } from "../../protocol/schemas.js";
import type { PaidEvent } from "../options.js";
import type { PaywallObserver } from "../PaywallObserver.js";
import { SettlementFailedError } from "../SettlementFailedError.js";
import { isUnknownSettleOutcome } from "../SettlementUnknownError.js";
import type { UnknownSettlements } from "../UnknownSettlements.js";
import type { Verified } from "../Verified.js";
import { reportPaid, type Exchange } from "./Exchange.js";
import { releaseReservation } from "../releaseReservation.js";

export interface SettlementsDeps {
  facilitator: Facilitator;
  ledger: PaymentLedger;
  logger: Logger;
  observer: PaywallObserver;
  onPaid?: ((event: PaidEvent) => void) | undefined;
  now: () => number;
  spentTtlMs: number;
}

/** Settling a verified payment and recording it spent and paid. */
export class Settlements {
  constructor(
    private readonly deps: SettlementsDeps,
    private readonly unknown: UnknownSettlements,
  ) {}

  /**
   * Settle; on success the payment is spent, otherwise released (no money moved, or the chain refuses
   * it anyway). A timed-out or cut `/settle` has an unknown outcome: the chain is asked, and while it
   * cannot tell, `SettlementUnknownError` is thrown with the payment still reserved.
   */
  async settle(exchange: Exchange, verified: Verified): Promise<SettleResponse> {
    const started = performance.now();
    let settlement: SettleResponse;
    try {
      settlement = await this.deps.facilitator.settle(verified.payment, verified.requirements);
    } catch (error) {
      this.deps.observer.settleLatency?.(performance.now() - started, false);
      if (error instanceof GatewayError) this.deps.observer.facilitatorError?.("settle", error.code);
      if (!isUnknownSettleOutcome(error)) {
        await releaseReservation(this.deps, verified.id, verified.token);
        throw error;
      }
      settlement = await this.unknown.resolve(verified, error as GatewayError);
    }
    this.deps.observer.settleLatency?.(performance.now() - started, settlement.success);
    if (!settlement.success) {
      await releaseReservation(this.deps, verified.id, verified.token);
      throw new SettlementFailedError(settlement);
    }
    await this.recordSettled(exchange, verified, settlement);
    return settlement;
  }

  /** Spend the payment in the ledger and report it paid. */
  async recordSettled(exchange: Exchange, verified: Verified, settlement: SettleResponse): Promise<void> {
    const { route, info } = exchange;
    try {
      await this.deps.ledger.spend(verified.id, verified.token, {
        keepUntilMs: spentUntilMs(verified.payment, this.deps.now(), this.deps.spentTtlMs),
      });
    } catch (error) {
      this.deps.observer.ledgerError?.("spend");
      // The money has moved: serve the response. A replay still fails at the token contract (nonce used).
      this.deps.logger.error(
        { err: error, route: route.key },
        "settled, but the ledger could not mark the payment spent",
      );
    }
    const paid: PaidEvent = {
      payer: settlement.payer ?? verified.payer,
      amount: verified.requirements.amount,
      asset: verified.requirements.asset,
      network: verified.requirements.network,
      route: route.key,
      transaction: settlement.transaction,
    };
    reportPaid(this.deps, info, paid, "payment settled");
  }
}
