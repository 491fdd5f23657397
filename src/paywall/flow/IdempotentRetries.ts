import type { Logger } from "../../common/Logger.js";
import { keepsResponses, type KeptResponse, type PaymentLedger } from "../../ledger/PaymentLedger.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { PaymentPayload } from "../../protocol/schemas.js";
import type { HeldSnapshot } from "../responses/ResponsePort.js";
import type { PaymentWire } from "../wires/PaymentWire.js";
import type { Exchange } from "./Exchange.js";

/** The extension's key, in offers and payments (`@x402/extensions/payment-identifier`). */
export const PAYMENT_IDENTIFIER = "payment-identifier";
/** What an identifier may be: 16 to 128 letters, digits, `-` and `_` (the extension's rule). */
const IDENTIFIER = /^[A-Za-z0-9_-]{16,128}$/;
/** Largest response kept for a retry, in bytes: a larger one is served once and not kept. */
export const MAX_KEPT_RESPONSE_BYTES = 1024 * 1024;

export interface IdempotentRetriesDeps {
  ledger: PaymentLedger;
  logger: Logger;
  /** How long a paid response is kept for a retry with the same identifier and payment, in ms. */
  windowMs: number;
}

/** Whether a route's offers declare `payment-identifier` (then its paid responses are kept), and if required. */
function declaration(route: PricedRoute): { required: boolean } | undefined {
  const declared = route.config.extensions?.[PAYMENT_IDENTIFIER] as
    { info?: { required?: unknown } } | undefined;
  if (declared === undefined) return undefined;
  return { required: declared.info?.required === true };
}

/**
 * Idempotent paid retries with the `payment-identifier` extension: on a route that declares it, a settled
 * response is kept (in the ledger, so every instance sharing it sees it) for `windowMs` under the client's
 * identifier; a retry with the same identifier and the same payment gets it again, neither verified nor
 * settled; another payment under that identifier is refused (409).
 */
export class IdempotentRetries {
  constructor(private readonly deps: IdempotentRetriesDeps) {}

  /**
   * The identifier of a JSON payment to a route that declares the extension (`undefined`: none, or not
   * declared); throws `invalid_payment` for a malformed one, or none where the route requires one.
   */
  identifierOf(route: PricedRoute, payload: PaymentPayload): string | undefined {
    const declared = declaration(route);
    if (declared === undefined || !keepsResponses(this.deps.ledger)) return undefined;
    const info = (payload.extensions?.[PAYMENT_IDENTIFIER] as { info?: { id?: unknown } } | undefined)?.info;
    const id = info?.id;
    if (id === undefined) {
      if (!declared.required) return undefined;
      throw new GatewayError(
        "invalid_payment",
        "this route requires a payment identifier (payment-identifier)",
        {
          details: { field: `extensions.${PAYMENT_IDENTIFIER}.info.id` },
        },
      );
    }
    if (typeof id !== "string" || !IDENTIFIER.test(id)) {
      throw new GatewayError(
        "invalid_payment",
        "the payment identifier must be 16 to 128 letters, digits, '-' or '_'",
        { details: { field: `extensions.${PAYMENT_IDENTIFIER}.info.id` } },
      );
    }
    return id;
  }

  /** Serve the response kept under `identifier` if `payment` paid for it; throws the conflict of another payment. */
  async replay(exchange: Exchange, wire: PaymentWire, identifier: string, payment: string): Promise<boolean> {
    let kept: KeptResponse | undefined;
    try {
      kept = await this.deps.ledger.keptResponse?.(identifier);
    } catch (error) {
      // Not knowing is not a reason to refuse: the ledger's own reservation still stops a double charge.
      this.deps.logger.warn({ err: error, route: exchange.route.key }, "could not read a kept response");
      return false;
    }
    if (kept === undefined) return false;
    if (kept.payment !== payment) {
      throw new GatewayError(
        "payment_identifier_conflict",
        "this payment identifier was used by another payment: use a new identifier for a new payment",
        { details: { identifier } },
      );
    }
    const { res, route, info } = exchange;
    res.statusCode = kept.status;
    for (const [name, value] of Object.entries(kept.headers)) res.setHeader(name, value);
    wire.markPaid(res, kept.receipt);
    Object.assign(info, { outcome: "paid", code: "replayed" });
    this.deps.logger.info({ route: route.key }, "kept response served again to a retry (payment-identifier)");
    res.end(kept.body);
    return true;
  }

  /** Keep a settled response under `identifier` (a failure is logged: the response is still served). */
  async keep(
    route: PricedRoute,
    identifier: string,
    payment: string,
    held: HeldSnapshot,
    receipt: unknown,
  ): Promise<void> {
    if (held.body.byteLength > MAX_KEPT_RESPONSE_BYTES) return;
    const headers: KeptResponse["headers"] = {};
    for (const [name, value] of Object.entries(held.headers))
      if (value !== undefined) headers[name] = typeof value === "object" ? [...value] : value;
    try {
      await this.deps.ledger.keepResponse?.(
        identifier,
        { payment, status: held.status, headers, body: held.body, receipt },
        this.deps.windowMs,
      );
    } catch (error) {
      this.deps.logger.warn({ err: error, route: route.key }, "could not keep a paid response for retries");
    }
  }
}
