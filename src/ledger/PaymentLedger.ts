/** The outcome of trying to reserve a payment's identity. */
export type ReserveOutcome =
  { status: "reserved"; token: string } | { status: "in_progress" } | { status: "spent" };

/**
 * Payment de-duplication: one payment pays for one response. A payment is reserved before it is
 * verified, then either spent (after settlement) or released (nothing settled; still usable).
 * Implementations must make `reserve` atomic across every gateway instance that shares them.
 */
export interface PaymentLedger {
  /** Reserve `id` for at most `holdMs`; the token proves ownership to `release` / `spend`. */
  reserve(id: string, options: { holdMs: number }): Promise<ReserveOutcome>;
  /** Give the reservation back (the payment was not settled). A token that no longer owns `id` is ignored. */
  release(id: string, token: string): Promise<void>;
  /** Mark `id` spent until `keepUntilMs` (epoch ms), replacing the reservation. */
  spend(id: string, token: string, options: { keepUntilMs: number }): Promise<void>;
  close?(): Promise<void>;
}

export function isPaymentLedger(value: unknown): value is PaymentLedger {
  const candidate = value as Partial<PaymentLedger> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.reserve === "function" &&
    typeof candidate.release === "function" &&
    typeof candidate.spend === "function"
  );
}
