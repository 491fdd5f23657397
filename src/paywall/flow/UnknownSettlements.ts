import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";
import { utf8Bytes } from "../../common/bytes.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { GatewayError } from "../../protocol/errors.js";
import type { HeldSnapshot } from "../responses/ResponsePort.js";
import type { Logger } from "../../common/Logger.js";
import { SettlementUnknownError } from "./SettlementUnknownError.js";
import type { PaymentWire, Verified } from "../wires/PaymentWire.js";
import { releaseReservation } from "./releaseReservation.js";
import type { PaywallObserver } from "./PaywallObserver.js";

/** A payment whose settlement outcome is unknown, with the response it pays for (mode `after`). */
export interface PendingSettlement {
  routeKey: string;
  wire: PaymentWire;
  verified: Verified;
  held: HeldSnapshot | undefined;
  /** Digest of the route and the exact `PAYMENT-SIGNATURE`: its identity alone is public once it lands. */
  binding: string;
  expiresAtMs: number;
  resolving: boolean;
}

export interface UnknownSettlementsDeps {
  ledger: PaymentLedger;
  logger: Logger;
  observer?: PaywallObserver | undefined;
  now: () => number;
  checkTimeoutMs: number;
  checkIntervalMs: number;
  reservationTtlMs: number;
}

/** At most this many unknown settlements are kept for a retry; beyond, the oldest is dropped. */
const MAX_PENDING = 256;

/**
 * Settlements whose `/settle` timed out or was cut, in either format: resolved when the format can find
 * out (the chain for EIP-3009, the CBOR facilitator's status call), otherwise kept (reservation and held
 * response, in this process) for a retry with the very same payment.
 */
export class UnknownSettlements {
  private readonly pending = new Map<string, PendingSettlement>();

  constructor(private readonly deps: UnknownSettlementsDeps) {}

  /**
   * Find out, for up to `checkTimeoutMs`, what a cut `/settle` did: the receipt when it happened; throws
   * `facilitator_unavailable` (released) when it did not, {@link SettlementUnknownError} when it cannot tell.
   */
  async resolve(wire: PaymentWire, verified: Verified, cause: GatewayError): Promise<unknown> {
    this.deps.logger.warn(
      { format: wire.label, reason: cause.details.reason },
      "settle outcome unknown (timed out or cut): finding out",
    );
    const deadline = this.deps.now() + this.deps.checkTimeoutMs;
    for (;;) {
      const result = await wire.checkSettlement(verified.payment, false);
      if (result.state === "settled") return result.receipt;
      if (result.state === "not_settled") {
        await releaseReservation(this.deps, verified.id, verified.token);
        throw new GatewayError("facilitator_unavailable", `the settlement did not happen: ${result.reason}`, {
          details: { endpoint: "settle", reason: cause.details.reason, chain: result.reason },
          retryAfterSeconds: cause.retryAfterSeconds,
          cause,
        });
      }
      // A format that cannot check this payment says so at once: no point asking again.
      if (!wire.canCheck(verified.payment) || this.deps.now() >= deadline) {
        throw new SettlementUnknownError(result.reason, { cause });
      }
      await new Promise((resolve) => setTimeout(resolve, this.deps.checkIntervalMs));
    }
  }

  /** Keep an unknown settlement (reservation and response) for a retry with the same payment. */
  keep(routeKey: string, wire: PaymentWire, verified: Verified, held: HeldSnapshot | undefined): void {
    const now = this.deps.now();
    const expiresAtMs = Math.max(
      wire.spentUntilMs(verified.payment, now) - 60_000,
      now + this.deps.reservationTtlMs,
    );
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.pending.delete(oldest);
    }
    const binding = bindingOf(routeKey, verified.header);
    this.pending.set(verified.id, { routeKey, wire, verified, held, binding, expiresAtMs, resolving: false });
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
   * A retry with a kept payment: only the very payment that was kept (same route, same `PAYMENT-SIGNATURE`
   * bytes) may have the kept response; anyone else who knows its identity is told it is in use.
   * Resolves the receipt and forgets the entry; throws `payment_in_progress`, `settlement_failed`
   * (released) or {@link SettlementUnknownError}.
   */
  async retry(pending: PendingSettlement, routeKey: string, header: string): Promise<unknown> {
    if (pending.binding !== bindingOf(routeKey, header) || pending.resolving) {
      throw new GatewayError(
        "payment_in_progress",
        "this payment is being used by another request; retry later",
        { retryAfterSeconds: 1 },
      );
    }
    const { verified, wire } = pending;
    pending.resolving = true;
    let result: Awaited<ReturnType<PaymentWire["checkSettlement"]>>;
    try {
      result = await wire.checkSettlement(verified.payment, true);
    } catch (error) {
      result = { state: "unknown", reason: (error as Error).message };
    } finally {
      pending.resolving = false;
    }
    if (result.state === "unknown") {
      throw new SettlementUnknownError(result.reason, { expiresAtMs: pending.expiresAtMs });
    }
    this.pending.delete(verified.id);
    if (result.state === "not_settled") {
      await releaseReservation(this.deps, verified.id, verified.token);
      throw new GatewayError("settlement_failed", `the payment was not settled: ${result.reason}`, {
        details: { reason: result.reason },
      });
    }
    return result.receipt;
  }
}

/** The route and the exact `PAYMENT-SIGNATURE`: what a kept response is bound to. */
function bindingOf(routeKey: string, header: string): string {
  return bytesToHex(sha256(utf8Bytes(`${routeKey}\0${header}`)));
}
