import { sha256, sha256Hex } from "../../common/digests.js";
import { hexOfBytes } from "../../common/bytes.js";
import type { ResponseWriter } from "../responses/ResponsePort.js";
import type { CborFacilitator } from "../../facilitator/CborFacilitator.js";
import type { QuantifiedClaim } from "../../protocol/cbor/Claim.js";
import type { CborFacilitatorRequest } from "../../protocol/cbor/facilitatorMessages.js";
import type { PaymentLedger } from "../../ledger/PaymentLedger.js";
import { issueCborRequest, matchCborContext, type IssuedRequest } from "../../pricing/cborPaymentRequests.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { CborRouteOffer } from "../../pricing/resolveCborOffer.js";
import { CborError } from "../../protocol/cbor/CborError.js";
import { checkPaymentIntent } from "../../protocol/cbor/checkPaymentIntent.js";
import { decodeWireIntent, type IntentView, type WireIntent } from "../../protocol/cbor/masks/WireIntent.js";
import { decodePaymentSignature, type PaymentSignature } from "../../protocol/cbor/PaymentSignature.js";
import { MAX_CBOR_PAYMENT_HEADER_CHARS } from "../../protocol/cbor/profile.js";
import { payerIdOfClaim } from "../../protocol/cbor/payerIdOfClaim.js";
import { receiptMismatch } from "../../protocol/cbor/receiptMismatch.js";
import { payerIdOf } from "../../protocol/cbor/signatures.js";
import type { SignerRegistry } from "../../signers/SignerRegistry.js";
import { SignerUnavailableError } from "../../signers/SignerUnavailableError.js";
import { decodeBase64 } from "../../protocol/decodeBase64.js";
import { GatewayError } from "../../protocol/errors.js";
import {
  chargeGrantsOrRefuse,
  checkDelegationOrRefuse,
  type CheckedDelegation,
  type DelegationPolicy,
} from "./cborDelegation.js";
import { markCborPaid, sendCborPaymentRequired } from "./cborResponses.js";
import { dropPaymentContentType } from "./cborRouting.js";
import { enforceHumanityGate } from "./enforceHumanityGate.js";
import { enforceRevelationMask } from "./enforceRevelationMask.js";
import type { PaidEvent } from "../setup/options.js";
import type { PaywallObserver } from "../flow/PaywallObserver.js";
import { addVary, sendError } from "../responses/respond.js";
import type { Exchange } from "../flow/Exchange.js";
import type {
  PaymentWire,
  Verified,
  WireHookView,
  WireSettlement,
  WireSettlementCheck,
} from "./PaymentWire.js";
import type { HookSettleResponse, HookVerifyResponse } from "../flow/PaymentHooks.js";
import type { SettleResponse } from "../../protocol/schemas.js";

export interface CborPaymentWireDeps {
  facilitator: CborFacilitator;
  ledger: PaymentLedger;
  observer: PaywallObserver;
  now: () => number;
  /** Clock difference tolerated on a PaymentRequest's deadline and a grant's expiry, in seconds. */
  skewSeconds: number;
  /** Delegation chains: their limits, or `false` to refuse them. */
  delegation: DelegationPolicy;
  /** The signer backends intents are verified with (each route says which it accepts). */
  signers: SignerRegistry;
}

/** A decoded CBOR `PAYMENT-SIGNATURE`: its bytes, the signature structure and the intent inside. */
export interface DecodedCborPayment {
  bytes: Uint8Array;
  signature: PaymentSignature;
  /** The intent's parts in clear (a part its mask hides is absent). */
  intent: IntentView;
  /** The intent as it came: its clear parts and its hidden ones. */
  wire: WireIntent;
  /** SHA-256 of the intent's bytes: what the facilitator settles once. */
  intentDigest: Uint8Array;
}

/** A CBOR payment that answers a still-valid PaymentRequest of its route. */
export interface CheckedCborPayment extends DecodedCborPayment {
  issued: IssuedRequest;
  delegation: CheckedDelegation | undefined;
  /** The route's mask document, for the facilitator (absent for the all-Open default). */
  maskDocument: Uint8Array | undefined;
}

/** A CBOR payment the facilitator verified; through a delegation chain the root pays and `delegate` signed. */
export interface VerifiedCborPayment extends CheckedCborPayment {
  payer: string;
  delegate: string | undefined;
}

/**
 * `application/x402+cbor` (docs/cbor.md): the CBOR offer, the checks the gateway makes itself (canonical
 * form, the context digest of a still-valid PaymentRequest of this route, merchant, currency, amount,
 * the subject's signature, the humanity gate, the delegation chain), grant charges in the ledger, and
 * the CBOR facilitator. The money path around it is the JSON one.
 */
export class CborPaymentWire implements PaymentWire<
  DecodedCborPayment,
  CheckedCborPayment,
  VerifiedCborPayment,
  Uint8Array
> {
  readonly label = "x402+cbor";

  constructor(private readonly deps: CborPaymentWireDeps) {}

  offerUnpaid(exchange: Exchange): void {
    const { route, res } = exchange;
    sendCborPaymentRequired(res, this.issue(route).bytes, cborOffer(route).revelationMaskDocument);
  }

  refuse(exchange: Exchange, error: GatewayError): void {
    const { res, route } = exchange;
    addVary(res, "Accept");
    if (error.status !== 402) return sendError(res, error, "cbor");
    sendCborPaymentRequired(res, this.issue(route).bytes, cborOffer(route).revelationMaskDocument, error);
  }

  decode(header: string): DecodedCborPayment {
    if (header.length > MAX_CBOR_PAYMENT_HEADER_CHARS) {
      throw new GatewayError("header_too_large", "PAYMENT-SIGNATURE is over 64 KiB of CBOR", {
        details: { header: "PAYMENT-SIGNATURE", limit: MAX_CBOR_PAYMENT_HEADER_CHARS },
      });
    }
    let bytes: Uint8Array;
    try {
      bytes = decodeBase64(header);
    } catch (error) {
      throw new GatewayError(
        "invalid_payment",
        `PAYMENT-SIGNATURE is not base64: ${(error as Error).message}`,
        { details: { header: "PAYMENT-SIGNATURE", stage: "base64" } },
      );
    }
    try {
      const signature = decodePaymentSignature(bytes);
      const wire = decodeWireIntent(signature.paymentIntent);
      const intentDigest = sha256(signature.paymentIntent);
      return { bytes, signature, intent: wire.view, wire, intentDigest };
    } catch (error) {
      if (error instanceof CborError) throw error.toInvalidPayment("PAYMENT-SIGNATURE");
      throw error;
    }
  }

  identity(decoded: DecodedCborPayment): string {
    return `cbor|${hexOfBytes(decoded.intentDigest)}`;
  }

  async check({ route }: Exchange, decoded: DecodedCborPayment): Promise<CheckedCborPayment> {
    const offer = cborOffer(route);
    const { intent, signature } = decoded;
    const match = matchCborContext(offer, intent.context, this.deps.now(), this.deps.skewSeconds);
    if (!match.ok) {
      throw new GatewayError(
        "payment_mismatch",
        match.reason === "expired"
          ? "the PaymentRequest this intent answers has expired: fetch a new offer"
          : "the intent does not answer a PaymentRequest of this route",
        { details: { field: "payment_intent.context", reason: match.reason } },
      );
    }
    const mismatch = checkPaymentIntent(match.issued.request, intent);
    if (mismatch) {
      const { code, ...details } = mismatch;
      throw new GatewayError(code, `the intent does not match this route: ${mismatch.field} differs`, {
        details,
      });
    }
    const { subject, time } = intent;
    // An unmasked intent is all in clear; a masked one carries no chain (enforceRevelationMask refuses it).
    const clear = subject === undefined || time === undefined ? undefined : { ...intent, subject, time };
    const masked = enforceRevelationMask(offer, decoded.wire, signature);
    if (masked === undefined) {
      // Fail closed: the mask check let no hidden part through, so the signature is always checked here.
      if (clear === undefined) throw new GatewayError("internal_error", "an unmasked intent hides a part");
      await this.verifySigner(offer.acceptedSigners, { ...decoded, intent: clear });
    }
    // The gate needs the payer: a route whose mask hides it cannot have the gate on (refused at start-up).
    if (subject !== undefined) enforceHumanityGate(offer, signature, { subject }, this.deps);
    else if (offer.acceptsHumanityGate)
      throw new GatewayError("internal_error", "a gated route hides the payer");
    const delegation =
      clear &&
      checkDelegationOrRefuse(this.deps.delegation, match.issued.request, clear, signature, this.deps.now());
    return { ...decoded, issued: match.issued, delegation, maskDocument: offer.revelationMaskDocument };
  }

  /** The ledger refunds the grants with the reservation when the flow releases it. */
  async charge(checked: CheckedCborPayment, id: string): Promise<void> {
    await chargeGrantsOrRefuse(this.deps, id, checked.delegation, checked.intent.quantity.amount);
  }

  async askVerify(checked: CheckedCborPayment): Promise<HookVerifyResponse> {
    const verdict = await this.deps.facilitator.verifyCbor(facilitatorRequest(checked));
    return verdict.isValid
      ? { isValid: true, payer: verdict.payer }
      : { isValid: false, invalidReason: verdict.invalidReason };
  }

  admit(
    checked: CheckedCborPayment,
    verdict: HookVerifyResponse,
  ): { payment: VerifiedCborPayment; payer: string } {
    // Through a chain, the root pays: the agent only signs on its behalf.
    const { delegation } = checked;
    const { subject, signer } = checked.intent;
    // A payer the mask hides stays hidden: named by this payment alone, whatever the facilitator says.
    if (subject === undefined) {
      const payer = `masked:${hexOfBytes(checked.intentDigest)}`;
      return { payment: { ...checked, payer, delegate: undefined }, payer };
    }
    const known = payerIdOfClaim({ subject, signer });
    const payer = delegation ? payerIdOf(delegation.root) : (verdict.payer ?? known);
    const delegate = delegation && known;
    return { payment: { ...checked, payer, delegate }, payer };
  }

  hookView(checked: CheckedCborPayment): WireHookView {
    const { quantity, object, subject, signer } = checked.intent;
    return {
      format: "x402+cbor",
      cbor: {
        amount: quantity.amount.toString(),
        currency: quantity.currency,
        merchant: object,
        payer: subject === undefined ? undefined : payerIdOfClaim({ subject, signer }),
      },
    };
  }

  /** Only the facilitator's signed receipt proves a CBOR settlement: a hook's result must carry one of this intent. */
  hookSettlement(payment: VerifiedCborPayment, result: HookSettleResponse): WireSettlement<Uint8Array> {
    const { receipt } = result;
    if (result.success && receipt instanceof Uint8Array && receiptMismatchOf(payment, receipt) === undefined)
      return { ok: true, receipt };
    const reason = result.success ? "hook_result_without_receipt" : (result.errorReason ?? "hook_failure");
    return {
      ok: false,
      error: new GatewayError("settlement_failed", `settlement failed: ${reason}`, { details: { reason } }),
    };
  }

  settlementRefused(_payment: VerifiedCborPayment, reason: string, message?: string): GatewayError {
    return new GatewayError("settlement_failed", `settlement failed: ${reason}`, {
      details: { reason, ...(message === undefined ? {} : { reasonMessage: message }) },
    });
  }

  settleResponseOf(payment: VerifiedCborPayment, receipt: Uint8Array): SettleResponse {
    return {
      success: true,
      transaction: receiptTransaction(receipt),
      network: "x402+cbor",
      payer: payment.payer,
    };
  }

  async settle(payment: VerifiedCborPayment): Promise<WireSettlement<Uint8Array>> {
    const settlement = await this.deps.facilitator.settleCbor(facilitatorRequest(payment));
    if (settlement.success && settlement.receipt !== undefined) {
      const mismatch = receiptMismatchOf(payment, settlement.receipt);
      // It says it settled, with a receipt of something else: money may have moved, the outcome is unknown.
      if (mismatch !== undefined) {
        throw new GatewayError("facilitator_error", `the facilitator's /settle receipt ${mismatch}`, {
          details: { endpoint: "settle", reason: "malformed" },
        });
      }
      return { ok: true, receipt: settlement.receipt };
    }
    const reason = settlement.errorReason ?? "no receipt";
    return {
      ok: false,
      error: new GatewayError("settlement_failed", `settlement failed: ${reason}`, {
        details: { reason: settlement.errorReason },
      }),
    };
  }

  canCheck(): boolean {
    return typeof this.deps.facilitator.cborSettlementOf === "function";
  }

  /**
   * Asks the facilitator for the intent's settlement (a read). On a retry, an intent it has not settled is
   * settled now: the facilitator never settles one intent twice, so this cannot charge twice.
   */
  async checkSettlement(
    payment: VerifiedCborPayment,
    retry: boolean,
  ): Promise<WireSettlementCheck<Uint8Array>> {
    let reason = "the CBOR facilitator has no status call";
    const settlementOf = this.deps.facilitator.cborSettlementOf?.bind(this.deps.facilitator);
    if (settlementOf !== undefined) {
      try {
        const status = await settlementOf(payment.intentDigest);
        const mismatch = status.settled ? receiptMismatchOf(payment, status.receipt) : undefined;
        if (status.settled && mismatch === undefined) return { state: "settled", receipt: status.receipt };
        if (mismatch !== undefined) reason = `the facilitator's status call answered a receipt ${mismatch}`;
        else {
          reason = "the facilitator has no settlement of this intent";
          if (!retry) return { state: "not_settled", reason };
        }
      } catch (error) {
        reason = `the facilitator's status call failed: ${(error as Error).message}`;
      }
    }
    if (!retry) return { state: "unknown", reason };
    try {
      const again = await this.settle(payment);
      if (again.ok) return { state: "settled", receipt: again.receipt };
      reason = `settling again failed: ${again.error.message}; the first attempt may have landed`;
    } catch (error) {
      reason = `settling again failed: ${(error as Error).message}`;
    }
    return { state: "unknown", reason };
  }

  spentUntilMs(payment: VerifiedCborPayment): number {
    return payment.issued.request.deadline.getTime() + (this.deps.skewSeconds + 60) * 1000;
  }

  paidEvent(route: PricedRoute, verified: Verified<VerifiedCborPayment>, receipt: Uint8Array): PaidEvent {
    const { currency, amount } = verified.payment.intent.quantity;
    const { delegate } = verified.payment;
    return {
      payer: verified.payer,
      amount: amount.toString(),
      asset: currency,
      network: "x402+cbor",
      payTo: verified.payment.intent.object,
      route: route.key,
      transaction: receiptTransaction(receipt),
      ...(delegate === undefined ? {} : { delegate }),
    };
  }

  markPaid(res: ResponseWriter, receipt: Uint8Array): void {
    markCborPaid(res, receipt);
  }

  beforeServing(exchange: Exchange): void {
    dropPaymentContentType(exchange.req);
  }

  /** The intent's signer backend, accepted by the route, says the signature is the subject's; else the refusal. */
  private async verifySigner(
    accepted: CborRouteOffer["acceptedSigners"],
    { intent, signature }: DecodedCborPayment & { intent: QuantifiedClaim },
  ): Promise<void> {
    if (signature.signature === undefined) {
      throw new GatewayError("verification_failed", "the signature is missing", {
        details: { field: "signature" },
      });
    }
    let refusal;
    try {
      refusal = await this.deps.signers.verifyIntent(
        { bytes: signature.paymentIntent, claim: intent, signature: signature.signature },
        accepted,
      );
    } catch (error) {
      if (!(error instanceof SignerUnavailableError)) throw error;
      // The client hears which account could not be checked, never the node's address or its failure
      // (those stay in the cause, for the logs).
      const { account } = error.details;
      const told = "the signer backend could not check this signature now; retry later";
      throw new GatewayError("signer_unavailable", told, {
        details: account === undefined ? {} : { account },
        cause: error,
        retryAfterSeconds: 5,
      });
    }
    if (refusal === undefined) return;
    const { code, message, ...details } = refusal;
    throw new GatewayError(
      code,
      code === "verification_failed"
        ? `the signature is not the intent subject's (${refusal.backend}): ${message}`
        : message,
      { details: { field: "signature", ...details } },
    );
  }

  private issue(route: PricedRoute): IssuedRequest {
    return issueCborRequest(cborOffer(route), this.deps.now());
  }
}

/** The facilitator's body: the recomputed request, the payment as received, the route's mask document. */
function facilitatorRequest(payment: CheckedCborPayment): CborFacilitatorRequest {
  return {
    paymentRequest: payment.issued.bytes,
    paymentSignature: payment.bytes,
    revelationMask: payment.maskDocument,
  };
}

/** Why `receipt` is not this payment's (`was_paid`, its quantity, context = the intent's digest), if it is not. */
function receiptMismatchOf(payment: CheckedCborPayment, receipt: Uint8Array): string | undefined {
  const mismatch = receiptMismatch(receipt, payment.intentDigest, payment.intent.quantity);
  return mismatch === undefined ? undefined : `is not this payment's: ${mismatch}`;
}

/** How paid events and hooks name a CBOR settlement: the digest of its receipt. */
function receiptTransaction(receipt: Uint8Array): string {
  return `receipt:${sha256Hex(receipt)}`;
}

function cborOffer(route: PricedRoute) {
  if (route.cbor === undefined)
    throw new GatewayError("internal_error", `route ${route.key} has no CBOR offer`);
  return route.cbor;
}
