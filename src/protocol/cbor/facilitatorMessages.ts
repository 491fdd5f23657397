import { CborError } from "./CborError.js";
import { CborFields } from "./CborFields.js";
import { MAX_CBOR_BYTES, MAX_CBOR_RECORD_ITEMS, type CborMap, type CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";
import { readSubject, type Claim } from "./Claim.js";
import { isCurrency, type Currency } from "./profile.js";
import { bytesOfCheckedHex, hexOfBytes } from "../../common/bytes.js";

/** Body of `POST /verify` and `/settle` in this format (our profile): the gateway's own request bytes. */
export interface CborFacilitatorRequest {
  /** The canonical PaymentRequest the gateway issued (recomputed), never a client's copy. */
  paymentRequest: Uint8Array;
  /** The client's PaymentSignature, as received. */
  paymentSignature: Uint8Array;
  /**
   * The mask document the PaymentRequest's `revelation_mask_ref` names by digest (absent for the
   * default all-Open `mask:v0.3:open-fields`).
   */
  revelationMask?: Uint8Array | undefined;
}

export interface CborVerifyResponse {
  isValid: boolean;
  invalidReason?: string | undefined;
  payer?: string | undefined;
}

export interface CborSettleResponse {
  success: boolean;
  /** The encoded SettlementReceipt, on success. */
  receipt?: Uint8Array | undefined;
  errorReason?: string | undefined;
}

export function encodeCborFacilitatorRequest(request: CborFacilitatorRequest): Uint8Array {
  const map: CborMap = new Map<string, CborValue>([
    ["x402Version", 2],
    ["paymentRequest", request.paymentRequest],
    ["paymentSignature", request.paymentSignature],
  ]);
  if (request.revelationMask !== undefined) map.set("revelationMask", request.revelationMask);
  return encodeCanonical(map);
}

/** A facilitator body carries a whole PaymentSignature (up to 64 KiB) and a PaymentRequest. */
export const MAX_FACILITATOR_REQUEST_BYTES = MAX_CBOR_BYTES + 8 * 1024;

export function decodeCborFacilitatorRequest(bytes: Uint8Array): CborFacilitatorRequest {
  const fields = CborFields.decode(bytes, "request", {
    maxBytes: MAX_FACILITATOR_REQUEST_BYTES,
    maxItems: MAX_CBOR_RECORD_ITEMS,
  });
  fields.constant("x402Version", 2);
  const request: CborFacilitatorRequest = {
    paymentRequest: fields.bytes("paymentRequest"),
    paymentSignature: fields.bytes("paymentSignature"),
  };
  const revelationMask = fields.optionalBytes("revelationMask");
  if (revelationMask !== undefined) request.revelationMask = revelationMask;
  fields.done();
  return request;
}

export function encodeCborVerifyResponse(response: CborVerifyResponse): Uint8Array {
  const map: CborMap = new Map<string, CborValue>([["isValid", response.isValid]]);
  if (response.invalidReason !== undefined) map.set("invalidReason", response.invalidReason);
  if (response.payer !== undefined) map.set("payer", response.payer);
  return encodeCanonical(map);
}

export function decodeCborVerifyResponse(bytes: Uint8Array): CborVerifyResponse {
  const fields = CborFields.decode(bytes, "VerifyResponse");
  const response: CborVerifyResponse = { isValid: fields.bool("isValid") };
  const invalidReason = fields.optionalText("invalidReason");
  const payer = fields.optionalText("payer");
  if (invalidReason !== undefined) response.invalidReason = invalidReason;
  if (payer !== undefined) response.payer = payer;
  fields.done();
  return response;
}

export function encodeCborSettleResponse(response: CborSettleResponse): Uint8Array {
  const map: CborMap = new Map<string, CborValue>([["success", response.success]]);
  if (response.receipt !== undefined) map.set("receipt", response.receipt);
  if (response.errorReason !== undefined) map.set("errorReason", response.errorReason);
  return encodeCanonical(map);
}

export function decodeCborSettleResponse(bytes: Uint8Array): CborSettleResponse {
  const fields = CborFields.decode(bytes, "SettleResponse");
  const response: CborSettleResponse = { success: fields.bool("success") };
  const receipt = fields.optionalBytes("receipt");
  const errorReason = fields.optionalText("errorReason");
  if (receipt !== undefined) response.receipt = receipt;
  if (errorReason !== undefined) response.errorReason = errorReason;
  fields.done();
  return response;
}

/**
 * Answer of `GET /settlements/<intent digest>`: `{ settled: true, receipt: bstr }` (the encoded
 * SettlementReceipt issued for the intent) or `{ settled: false }`, nothing else.
 */
export type CborSettlementStatusMessage = { settled: true; receipt: Uint8Array } | { settled: false };

export function encodeCborSettlementStatus(status: CborSettlementStatusMessage): Uint8Array {
  const map: CborMap = new Map<string, CborValue>([["settled", status.settled]]);
  if (status.settled) map.set("receipt", status.receipt);
  return encodeCanonical(map);
}

export function decodeCborSettlementStatus(bytes: Uint8Array): CborSettlementStatusMessage {
  const fields = CborFields.decode(bytes, "SettlementStatus");
  // A receipt without `settled: true`, or `settled: true` without one, is refused (unknown/missing key).
  const status: CborSettlementStatusMessage = fields.bool("settled")
    ? { settled: true, receipt: fields.bytes("receipt") }
    : { settled: false };
  fields.done();
  return status;
}

/** Bytes of an intent digest (SHA-256 of the payment_intent bytes): the key of a settlement. */
export const INTENT_DIGEST_BYTES = 32;

/** The path segment of an intent digest: 64 lowercase hex digits. Throws CborError on another length. */
export function formatIntentDigest(digest: Uint8Array): string {
  if (digest.length !== INTENT_DIGEST_BYTES) {
    throw new CborError(
      "wrong_value",
      `an intent digest is ${INTENT_DIGEST_BYTES} bytes, got ${digest.length}`,
    );
  }
  return hexOfBytes(digest);
}

/** The digest named by a path segment, or `undefined` unless it is exactly 64 lowercase hex digits. */
export function parseIntentDigest(segment: string): Uint8Array | undefined {
  return /^[0-9a-f]{64}$/.test(segment) ? bytesOfCheckedHex(segment) : undefined;
}

/** Body of the local facilitator's `POST /refund` (v0.3): a receipt it issued, and the units to refund. */
export interface CborRefundRequest {
  /** The encoded SettlementReceipt, byte for byte as issued. */
  receipt: Uint8Array;
  /** Units to refund (default: the whole amount paid). */
  amount?: bigint | undefined;
}

export function encodeCborRefundRequest(request: CborRefundRequest): Uint8Array {
  const map: CborMap = new Map<string, CborValue>([["receipt", request.receipt]]);
  if (request.amount !== undefined) map.set("amount", request.amount);
  return encodeCanonical(map);
}

export function decodeCborRefundRequest(bytes: Uint8Array): CborRefundRequest {
  const fields = CborFields.decode(bytes, "RefundRequest");
  const request: CborRefundRequest = { receipt: fields.bytes("receipt") };
  const amount = fields.optional("amount", () => fields.uint("amount"));
  if (amount !== undefined) request.amount = amount;
  fields.done();
  return request;
}

/** Answer of `GET /revocations`: `{ revocations: [bstr] }`, each an encoded SignedClaim (`revokes`). */
export function encodeCborRevocationList(revocations: readonly Uint8Array[]): Uint8Array {
  return encodeCanonical(new Map<string, CborValue>([["revocations", [...revocations]]]));
}

export function decodeCborRevocationList(bytes: Uint8Array): Uint8Array[] {
  const fields = CborFields.decode(bytes, "RevocationList");
  const revocations = fields.bytesArray("revocations");
  fields.done();
  return revocations;
}

/**
 * Body of the local facilitator's dev-only `POST /fund` (v0.3): test units for a payer of any signer
 * backend — `subject` exactly as an intent writes it (a bare key, or `[signer id, identity]`).
 */
export interface CborFundRequest {
  subject: Pick<Claim, "subject" | "signer">;
  currency: Currency;
  amount: bigint;
}

export function encodeCborFundRequest(request: CborFundRequest): Uint8Array {
  const { subject, signer } = request.subject;
  return encodeCanonical(
    new Map<string, CborValue>([
      ["subject", signer === undefined ? subject : [signer, subject]],
      ["currency", request.currency],
      ["amount", request.amount],
    ]),
  );
}

export function decodeCborFundRequest(bytes: Uint8Array): CborFundRequest {
  const fields = CborFields.decode(bytes, "FundRequest");
  const subject = readSubject(fields.any("subject"));
  const currency = fields.text("currency");
  if (!isCurrency(currency)) {
    throw new CborError("wrong_value", "expected USDC, STRK or strkBTC", "FundRequest.currency");
  }
  const amount = fields.uint("amount");
  if (amount === 0n) throw new CborError("wrong_value", "fund at least 1 unit", "FundRequest.amount");
  fields.done();
  return { subject, currency, amount };
}
