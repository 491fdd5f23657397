import { sha256 } from "../../common/digests.js";
import { CborError } from "./CborError.js";
import { CborFields } from "./CborFields.js";
import { CborTag, type CborMap, type CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";
import { isCurrency, type Currency } from "./profile.js";

/** The CBOR offer in `PAYMENT-REQUIRED` (seed field names; the deadline's tag 0 text is our profile). */
export interface PaymentRequest {
  currency: Currency;
  /** In the currency's smallest unit. */
  amount: bigint;
  merchantPseudonym: string;
  serviceId: string;
  /** Whole seconds, UTC; after it the request is void. */
  deadline: Date;
  revelationMaskRef: string;
  acceptsHumanityGate: boolean;
  claimSchemaRef: string;
}

const WHAT = "PaymentRequest";

export function encodePaymentRequest(request: PaymentRequest): Uint8Array {
  if (!isCurrency(request.currency))
    throw new CborError("wrong_value", "unknown currency", `${WHAT}.currency`);
  const map: CborMap = new Map<string, CborValue>([
    ["currency", request.currency],
    ["amount", request.amount],
    ["merchant_pseudonym", request.merchantPseudonym],
    ["service_id", request.serviceId],
    ["deadline", new CborTag(0, formatDateTime(request.deadline))],
    ["revelation_mask_ref", request.revelationMaskRef],
    ["accepts_humanity_gate", request.acceptsHumanityGate],
    ["claim_schema_ref", request.claimSchemaRef],
  ]);
  return encodeCanonical(map);
}

export function decodePaymentRequest(bytes: Uint8Array): PaymentRequest {
  const fields = CborFields.decode(bytes, WHAT);
  const currency = fields.text("currency");
  if (!isCurrency(currency)) {
    throw new CborError("wrong_value", "expected USDC, STRK or strkBTC", `${WHAT}.currency`);
  }
  const request: PaymentRequest = {
    currency,
    amount: fields.uint("amount"),
    merchantPseudonym: fields.text("merchant_pseudonym"),
    serviceId: fields.text("service_id"),
    deadline: fields.dateTime("deadline"),
    revelationMaskRef: fields.text("revelation_mask_ref"),
    acceptsHumanityGate: fields.bool("accepts_humanity_gate"),
    claimSchemaRef: fields.text("claim_schema_ref"),
  };
  fields.done();
  return request;
}

/** SHA-256 of the canonical bytes: the `context` of an intent that answers this request. */
export function paymentRequestDigest(request: PaymentRequest | Uint8Array): Uint8Array {
  const bytes = request instanceof Uint8Array ? request : encodePaymentRequest(request);
  return sha256(bytes);
}

/** `2026-01-31T12:00:00Z`: the one RFC 3339 form this profile writes and accepts. */
export function formatDateTime(date: Date): string {
  const ms = date.getTime();
  if (
    !Number.isFinite(ms) ||
    ms % 1000 !== 0 ||
    date.getUTCFullYear() < 1970 ||
    date.getUTCFullYear() > 9999
  ) {
    throw new CborError("wrong_value", "a date-time must be whole seconds between 1970 and 9999", "deadline");
  }
  return date.toISOString().replace(".000Z", "Z");
}
