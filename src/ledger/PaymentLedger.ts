/** The outcome of trying to reserve a payment's identity. */
export type ReserveOutcome =
  { status: "reserved"; token: string } | { status: "in_progress" } | { status: "spent" };

/** What one payment through a delegation chain charges: its amount, against every grant of the chain. */
export interface GrantCharge {
  amount: bigint;
  grants: Array<{
    /** Hex SHA-256 of the grant's claim bytes. */
    id: string;
    /** The most all payments under this grant may add up to. */
    cap: bigint;
    /** Until when the grant's spending must be remembered (past its expiry), epoch ms. */
    keepUntilMs: number;
  }>;
}

export type GrantChargeOutcome =
  { status: "charged" } | { status: "cap_exceeded"; grantId: string; spent: bigint; cap: bigint };

/** A pass bought by one payment (docs/passes.md): its credits left, its payer and scope, its end. */
export interface PassRecord {
  /** 32 hex digits. */
  id: string;
  /** The scope's tag (16 hex digits). */
  scope: string;
  /** The payer, lower case. */
  payer: string;
  /** Requests left after the paying one; `undefined` for a pass counted by time only. */
  credits: number | undefined;
  /** When the pass ends, epoch ms. */
  expiresAtMs: number;
}

/** Using a pass once: `used` (with the credits left, or `undefined` when counted by time), `used_up`, or `unknown` (never issued, expired or ended). */
export type PassUse =
  { status: "used"; remaining: number | undefined } | { status: "used_up" } | { status: "unknown" };

/**
 * A paid response kept for an idempotent retry (the `payment-identifier` extension): served again, as it
 * was, to a retry with the same identifier and the same payment.
 */
export interface KeptResponse {
  /** The ledger identity of the payment that paid for it: only that payment gets it again. */
  payment: string;
  status: number;
  headers: Record<string, string | number | string[]>;
  body: Uint8Array;
  /** The settlement's receipt (what `PAYMENT-RESPONSE` carries). */
  receipt: unknown;
}

/**
 * What a ledger's health check found: `ok`, or why not in a word anyone may see (`unreachable`, `timeout`,
 * `error`), with the detail for the logs only.
 */
export type LedgerHealth =
  { ok: true } | { ok: false; reason: "unreachable" | "timeout" | "error"; detail: string };

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
  /**
   * A cheap round trip through the ledger's own connection, answered within `timeoutMs` (for readiness:
   * a shared ledger that cannot answer fails every paid request). Ledgers in this process need none.
   */
  health?(timeoutMs: number): Promise<LedgerHealth>;
  /**
   * Delegation grants' spending (optional; CBOR routes that accept delegation chains need it). Charge
   * `charge.amount` to every grant, all or none: refused when any grant's total would pass its cap.
   * Recorded against the reserved payment `id`: charging an `id` already charged changes nothing, and
   * `release(id, token)` gives the charge back (nothing was settled) while `spend` keeps it. Atomic
   * across every instance that shares the ledger.
   */
  chargeGrants?(id: string, charge: GrantCharge): Promise<GrantChargeOutcome>;
  /**
   * Keep a paid response under its client's payment identifier for `ttlMs` (optional; routes that declare
   * `payment-identifier` need it). The first response kept under an identifier stays; a later one is
   * ignored. Bounded: a ledger may drop the oldest, or not keep one too large, so a retry can miss it.
   */
  keepResponse?(identifier: string, response: KeptResponse, ttlMs: number): Promise<void>;
  /** The response kept under `identifier`, if it is still there. */
  keptResponse?(identifier: string): Promise<KeptResponse | undefined>;
  /** Passes (routes with `pass`): open one, with its credits, until it expires. */
  openPass?(pass: PassRecord): Promise<void>;
  /** Spend one credit of pass `id`, atomically across every instance that shares the ledger. */
  usePass?(id: string): Promise<PassUse>;
  /** The id of the newest live pass `payer` (lower case) holds on `scope` (a tag), for a signed-in payer. */
  passOf?(scope: string, payer: string): Promise<string | undefined>;
  /** End every pass of `payer` (lower case), at every instance: a refund or a revocation. Resolves how many. */
  endPasses?(payer: string): Promise<number>;
}

/** Whether a ledger keeps paid responses for idempotent retries. */
export function keepsResponses(
  ledger: PaymentLedger,
): ledger is PaymentLedger & Required<Pick<PaymentLedger, "keepResponse" | "keptResponse">> {
  return typeof ledger.keepResponse === "function" && typeof ledger.keptResponse === "function";
}

/** Whether a ledger keeps passes. */
export function keepsPasses(
  ledger: PaymentLedger,
): ledger is PaymentLedger & Required<Pick<PaymentLedger, "openPass" | "usePass" | "passOf" | "endPasses">> {
  return (
    typeof ledger.openPass === "function" &&
    typeof ledger.usePass === "function" &&
    typeof ledger.passOf === "function" &&
    typeof ledger.endPasses === "function"
  );
}

/** Whether a ledger counts delegation grants' spending. */
export function countsGrants(
  ledger: PaymentLedger,
): ledger is PaymentLedger & Required<Pick<PaymentLedger, "chargeGrants">> {
  return typeof ledger.chargeGrants === "function";
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
