import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";
import { decodeBase64 } from "../protocol/decodeBase64.js";
import { decodePaymentRequest, type PaymentRequest } from "../protocol/cbor/PaymentRequest.js";
import { decodeSettlementReceipt, type SettlementReceipt } from "../protocol/cbor/SettlementReceipt.js";
import { claimPartValues, CLAIM_PARTS } from "../protocol/cbor/Claim.js";
import { DEFAULT_REVELATION_MASK_REF } from "../protocol/cbor/profile.js";
import {
  decodeRestrictedReceipt,
  type ReceiptOpenings,
  type RestrictedReceipt,
} from "../protocol/cbor/RestrictedReceipt.js";
import { guardSignedFetch } from "./guardSignedFetch.js";
import {
  createCborPayment,
  createMaskedCborPayment,
  type CborPayment,
  type CborPaymentOptions,
} from "./createCborPayment.js";

/** Obtains a humanity claim about `subject` (the payer's key) for an offer that asks for one. */
export type HumanityClaimSource = (
  request: PaymentRequest,
  subject: Uint8Array,
) => Promise<Uint8Array> | Uint8Array;

export interface PayCborRouteOptions extends Omit<CborPaymentOptions, "offer" | "humanityClaim"> {
  /**
   * The `humanity_claim`: its bytes (always sent), or a source asked only when the offer says
   * `accepts_humanity_gate` (e.g. a call to the issuer).
   */
  humanityClaim?: Uint8Array | HumanityClaimSource;
  fetch?: typeof fetch;
  /** Refuse offers above this amount, in the smallest unit. */
  maxAmount?: bigint;
  /** Extra headers on both requests. */
  headers?: Record<string, string>;
  /**
   * The CBOR facilitator's HPKE public key (its `/supported` `hpkeKey.publicKey`, 32 bytes): needed to
   * pay an offer whose revelation mask hides intent parts.
   */
  facilitatorHpkeKey?: Uint8Array;
}

export interface CborPaidResponse {
  /** The final response (its body unread). */
  response: Response;
  /** The first answer's status (402 when the route is priced). */
  offeredStatus: number;
  payment?: CborPayment;
  /** `PAYMENT-RESPONSE`, decoded, when there is one. */
  receipt?: SettlementReceipt;
  /** `PAYMENT-RESPONSE` when the route's mask hides receipt parts: the receipt with them committed. */
  restrictedReceipt?: RestrictedReceipt;
  /** What opens the restricted receipt's hidden parts that the payer hid itself (e.g. its subject). */
  receiptOpenings?: ReceiptOpenings;
}

/**
 * Pay a GET route in `application/x402+cbor`: GET with `Accept` preferring CBOR, read the 402's
 * PaymentRequest, sign an intent, retry as `POST` (empty body, `Content-Type: application/x402+cbor`,
 * `PAYMENT-SIGNATURE`) and decode the receipt. The payment goes over https:// or to loopback only (the
 * profile names no network, so no setting allows plain HTTP): else it throws `InsecureTransportError` and nothing is sent.
 */
export async function payCborRoute(url: string, options: PayCborRouteOptions): Promise<CborPaidResponse> {
  const fetchImpl = guardSignedFetch(options.fetch ?? fetch);
  const first = await fetchImpl(url, {
    headers: { ...options.headers, accept: `${CBOR_MEDIA_TYPE}, application/json;q=0.5` },
  });
  const offer = first.headers.get("payment-required");
  if (first.status !== 402 || offer === null) return { response: first, offeredStatus: first.status };
  await first.arrayBuffer();
  const humanityClaim =
    typeof options.humanityClaim === "function"
      ? await humanityClaimFor(options.humanityClaim, decodePaymentRequest(decodeBase64(offer)), options)
      : options.humanityClaim;
  const mask = first.headers.get("x402-revelation-mask") ?? undefined;
  const masked =
    mask !== undefined ||
    decodePaymentRequest(decodeBase64(offer)).revelationMaskRef !== DEFAULT_REVELATION_MASK_REF;
  const payment = masked
    ? await createMaskedCborPayment({ ...options, offer, humanityClaim, mask })
    : createCborPayment({ ...options, offer, humanityClaim });
  if (options.maxAmount !== undefined && payment.request.amount > options.maxAmount) {
    throw new RangeError(
      `the offer asks ${payment.request.amount} ${payment.request.currency}, above the maximum ${options.maxAmount}`,
    );
  }
  const response = await fetchImpl(url, {
    method: "POST",
    headers: {
      ...options.headers,
      accept: `${CBOR_MEDIA_TYPE}, application/json;q=0.5, */*;q=0.1`,
      "content-type": CBOR_MEDIA_TYPE,
      "payment-signature": payment.header,
    },
  });
  const receiptHeader = response.headers.get("payment-response");
  const result: CborPaidResponse = { response, offeredStatus: first.status, payment };
  if (receiptHeader === null) return result;
  const receiptBytes = decodeBase64(receiptHeader);
  if (!masked) result.receipt = decodeSettlementReceipt(receiptBytes);
  else {
    try {
      result.receipt = decodeSettlementReceipt(receiptBytes);
    } catch {
      result.restrictedReceipt = decodeRestrictedReceipt(receiptBytes);
      result.receiptOpenings = ownOpenings(payment, result.restrictedReceipt);
    }
  }
  return result;
}

/** The payer's openings of the receipt parts it hid in the intent with the same salt (v0.3: the subject). */
function ownOpenings(payment: CborPayment, receipt: RestrictedReceipt): ReceiptOpenings {
  const openings: ReceiptOpenings = {};
  const values = claimPartValues(payment.intent);
  CLAIM_PARTS.forEach((part, index) => {
    const salt = payment.salts?.[part];
    if (salt !== undefined && part !== "time" && !("salt" in (receipt.parts[index] ?? {}))) {
      openings[part] = { salt, value: values[index]! };
    }
  });
  return openings;
}

async function humanityClaimFor(
  source: HumanityClaimSource,
  request: PaymentRequest,
  options: PayCborRouteOptions,
): Promise<Uint8Array | undefined> {
  return request.acceptsHumanityGate ? source(request, options.key.publicKey) : undefined;
}
