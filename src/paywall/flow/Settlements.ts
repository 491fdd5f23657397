import type { Logger } from "../../common/Logger.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaidEvent } from "../setup/options.js";
import type { PaywallObserver } from "./PaywallObserver.js";
import type { UnknownSettlements } from "./UnknownSettlements.js";
import { hookContextOf, reportPaid, type Exchange } from "./Exchange.js";
import type { PaymentWire, Verified, WireSettlement } from "../wires/PaymentWire.js";
import type { HookRunner } from "./HookRunner.js";
import type { SettleContext, SettlePhase } from "./PaymentHooks.js";
import { releaseReservation } from "./releaseReservation.js";
import { isUnknownSettleOutcome } from "./SettlementUnknownError.js";

export interface SettlementsDeps {
  hooks: HookRunner;
  ledger: PaymentLedger;
  logger: Logger;
  observer: PaywallObserver;
  onPaid?: ((event: PaidEvent) => void) | undefined;
  now: () => number;
}

/** Settling a verified payment, in either format, and recording it spent and paid. */
export class Settlements {
  constructor(
    private readonly deps: SettlementsDeps,
    private readonly unknown: UnknownSettlements,
  ) {}

  /**
   * Settle; on success the payment is spent, otherwise released (no money moved, or it never will). A
   * timed-out or cut `/settle` has an unknown outcome: the format finds out, and while it cannot tell,
   * `SettlementUnknownError` is thrown with the payment still reserved. Resolves the receipt. The settle
   * hooks run around it: `onBeforeSettle` may abort (nothing settled) or skip `/settle` with its own
   * result; `onSettleFailure` may recover a definite failure (never an unknown outcome: that is found out).
   */
  async settle(
    exchange: Exchange,
    wire: PaymentWire,
    verified: Verified,
    phase: SettlePhase,
  ): Promise<unknown> {
    const context: SettleContext = { ...hookContextOf(exchange), phase };
    const decision = await this.deps.hooks.beforeSettle(context);
    if (decision.kind === "abort") {
      await releaseReservation(this.deps, verified.id, verified.token);
      throw wire.settlementRefused(verified.payment, decision.reason, decision.message);
    }
    if (decision.kind === "skip")
      return this.concluded(
        exchange,
        wire,
        verified,
        context,
        wire.hookSettlement(verified.payment, decision.result),
      );
    const started = performance.now();
    let settlement: Awaited<ReturnType<PaymentWire["settle"]>>;
    try {
      settlement = await wire.settle(verified.payment);
    } catch (error) {
      this.deps.observer.settleLatency?.(performance.now() - started, false);
      if (error instanceof GatewayError) this.deps.observer.facilitatorError?.("settle", error.code);
      if (!isUnknownSettleOutcome(error)) {
        const recovered = await this.deps.hooks.settleFailure(context, error as Error);
        if (recovered !== undefined)
          return this.concluded(
            exchange,
            wire,
            verified,
            context,
            wire.hookSettlement(verified.payment, recovered),
          );
        await releaseReservation(this.deps, verified.id, verified.token);
        throw error;
      }
      const receipt = await this.unknown.resolve(wire, verified, error as GatewayError);
      return this.concluded(exchange, wire, verified, context, { ok: true, receipt });
    }
    this.deps.observer.settleLatency?.(performance.now() - started, settlement.ok);
    if (!settlement.ok) {
      const recovered = await this.deps.hooks.settleFailure(context, settlement.error);
      if (recovered !== undefined) settlement = wire.hookSettlement(verified.payment, recovered);
    }
    return this.concluded(exchange, wire, verified, context, settlement);
  }

  /** A settlement decided: spent and reported (then `onAfterSettle`), or released and thrown. */
  private async concluded(
    exchange: Exchange,
    wire: PaymentWire,
    verified: Verified,
    context: SettleContext,
    settlement: WireSettlement<unknown>,
  ): Promise<unknown> {
    if (!settlement.ok) {
      await releaseReservation(this.deps, verified.id, verified.token);
      throw settlement.error;
    }
    await this.recordSettled(exchange, wire, verified, settlement.receipt);
    await this.deps.hooks.afterSettle(context, wire.settleResponseOf(verified.payment, settlement.receipt));
    return settlement.receipt;
  }

  /** Spend the payment in the ledger and report it paid. */
  async recordSettled(
    exchange: Exchange,
    wire: PaymentWire,
    verified: Verified,
    receipt: unknown,
  ): Promise<void> {
    const { route, info } = exchange;
    try {
      await this.deps.ledger.spend(verified.id, verified.token, {
        keepUntilMs: wire.spentUntilMs(verified.payment, this.deps.now()),
      });
    } catch (error) {
      this.deps.observer.ledgerError?.("spend");
      // The money has moved: serve the response. A replay still fails at the facilitator (nonce or intent used).
      this.deps.logger.error(
        { err: error, route: route.key },
        "settled, but the ledger could not mark the payment spent",
      );
    }
    const paid = wire.paidEvent(route, verified, receipt);
    reportPaid(
      this.deps,
      info,
      paid,
      wire.label === "x402" ? "payment settled" : `payment settled (${wire.label})`,
    );
  }
}
