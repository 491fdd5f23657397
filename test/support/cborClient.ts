import { expect } from "vitest";
import { decodeErrorBody, type ErrorBody } from "../../src/protocol/cbor/ErrorBody.js";
import { decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { encodeClaim, type Claim } from "../../src/protocol/cbor/Claim.js";
import { decodePaymentRequest, paymentRequestDigest } from "../../src/protocol/cbor/PaymentRequest.js";
import { encodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import type { SigningKey } from "../../src/protocol/cbor/signatures.js";
import { standInProof } from "../../src/protocol/cbor/standInProof.js";

export const CBOR = "application/x402+cbor";

/** GET asking for a CBOR offer; returns the offer's bytes (from the header) and the response. */
export async function fetchCborOffer(
  url: string,
): Promise<{ response: Response; offer: Uint8Array; body: Uint8Array }> {
  const response = await fetch(url, { headers: { accept: `${CBOR}, application/json;q=0.5` } });
  const body = new Uint8Array(await response.arrayBuffer());
  const header = response.headers.get("payment-required");
  if (header === null) throw new Error(`no PAYMENT-REQUIRED on ${response.status}`);
  return { response, offer: decodeBase64(header), body };
}

/**
 * An intent for `offer`, with any part overridden (to build wrong amounts, currencies, …), signed by
 * `signer` (default `key`); returns the PAYMENT-SIGNATURE header value.
 */
export function signedIntent(
  offer: Uint8Array,
  key: SigningKey,
  overrides: Partial<Claim> = {},
  options: {
    time?: number;
    signer?: SigningKey;
    mutate?: (intent: Uint8Array) => Uint8Array;
    delegationChain?: Uint8Array[];
    /** Replace the stand-in proof (to have the facilitator refuse what the gateway accepts). */
    proof?: Uint8Array;
  } = {},
): string {
  const request = decodePaymentRequest(offer);
  const claim: Claim = {
    subject: key.publicKey,
    predicate: "pays",
    object: request.merchantPseudonym,
    quantity: { currency: request.currency, amount: request.amount },
    time: options.time ?? Math.floor(Date.now() / 1000),
    context: paymentRequestDigest(offer),
    ...overrides,
  };
  const intent = encodeClaim(claim);
  const signature = (options.signer ?? key).sign(intent);
  const paymentIntent = options.mutate ? options.mutate(intent) : intent;
  const bytes = encodePaymentSignature({
    paymentIntent,
    starkProof: options.proof ?? standInProof(paymentIntent),
    signature,
    delegationChain: options.delegationChain,
  });
  return Buffer.from(bytes).toString("base64");
}

/** The POST retry of a CBOR payment: empty body, CBOR content type, the payment header. */
export function postCborPayment(url: string, paymentHeader: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      accept: `${CBOR}, application/json;q=0.5`,
      "content-type": CBOR,
      "payment-signature": paymentHeader,
    },
  });
}

/** The code and reason of a non-402 refusal sent to a CBOR client: a CBOR `{ error, reason }` body, never JSON. */
export async function cborRefusal(response: Response): Promise<ErrorBody> {
  expect(response.headers.get("content-type")).toBe(CBOR);
  return decodeErrorBody(new Uint8Array(await response.arrayBuffer()));
}
