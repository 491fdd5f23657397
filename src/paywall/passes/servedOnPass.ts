import type { SettleResponse } from "../../protocol/schemas.js";
import type { Exchange, Next } from "../flow/Exchange.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";
import type { ResponseWriter } from "../responses/ResponsePort.js";
import type { PaymentWire } from "../wires/PaymentWire.js";
import type { PassGrant } from "./Passes.js";

/** The header a CBOR answer carries its pass token in (its receipt is signed CBOR: nothing is added to it). */
export const PAYMENT_PASS = "PAYMENT-PASS";

/** A request a pass let in: counted as such, handed on unpaid, never settled. */
export function servedOnPass(deps: { observer: PaywallObserver }, exchange: Exchange, next: Next): void {
  exchange.info.outcome = "pass";
  deps.observer.outcome?.(exchange.route.key, "pass");
  next();
}

/**
 * The receipt with the pass it bought: in base64 JSON, `PAYMENT-RESPONSE`'s `extensions.pass`; in CBOR, the
 * `PAYMENT-PASS` header (the receipt itself is signed).
 */
export function withPass(
  wire: PaymentWire,
  res: ResponseWriter,
  receipt: unknown,
  grant: PassGrant,
): unknown {
  if (wire.label !== "x402") {
    res.setHeader(PAYMENT_PASS, grant.token);
    return receipt;
  }
  const settled = receipt as SettleResponse;
  return { ...settled, extensions: { ...settled.extensions, pass: grant } };
}
