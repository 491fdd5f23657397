import { decodeBase64 } from "../protocol/decodeBase64.js";
import { encodeClaim, type Claim } from "../protocol/cbor/Claim.js";
import {
  decodePaymentRequest,
  paymentRequestDigest,
  type PaymentRequest,
} from "../protocol/cbor/PaymentRequest.js";
import { encodePaymentSignature } from "../protocol/cbor/PaymentSignature.js";
import { PREDICATE_PAYS } from "../protocol/cbor/profile.js";
import type { IntentKey } from "./IntentKey.js";
import { standInProof } from "../protocol/cbor/standInProof.js";

export interface CborPaymentOptions {
  /** The offer: the `PAYMENT-REQUIRED` header value (base64), or the 402 body's CBOR bytes. */
  offer: string | Uint8Array;
  /**
   * The payer's key: an Ed25519 or ML-DSA-65 SigningKey (ServiceAuthSigner), or another backend's
   * IntentKey (e.g. starknetIntentKey); its public key (and backend) becomes the claim's subject.
   */
  key: IntentKey;
  /** Clock, epoch ms (the intent's `time`). */
  now?: () => number;
  /** The `stark_proof` for the intent bytes; default the local stack's STAND-IN proof (not a STARK proof). */
  proof?: (paymentIntent: Uint8Array) => Uint8Array;
  humanityClaim?: Uint8Array;
  delegationChain?: Uint8Array[];
}

export interface CborPayment {
  /** The offer, decoded. */
  request: PaymentRequest;
  /** The signed six-part claim. */
  intent: Claim;
  /** The canonical CBOR PaymentSignature. */
  bytes: Uint8Array;
  /** `PAYMENT-SIGNATURE` header value: base64 of `bytes`. */
  header: string;
}

/**
 * Answer a CBOR offer: the intent "key pays merchant amount currency now, answering this request"
 * (context = SHA-256 of the offer's canonical bytes), signed over its exact bytes, wrapped in a
 * PaymentSignature. Throws CborError for an offer that is not a canonical PaymentRequest.
 */
export function createCborPayment(options: CborPaymentOptions): CborPayment {
  const offerBytes = typeof options.offer === "string" ? decodeBase64(options.offer) : options.offer;
  const request = decodePaymentRequest(offerBytes);
  const intent: Claim = {
    subject: options.key.publicKey,
    signer: options.key.signer,
    predicate: PREDICATE_PAYS,
    object: request.merchantPseudonym,
    quantity: { currency: request.currency, amount: request.amount },
    time: Math.floor((options.now ?? Date.now)() / 1000),
    context: paymentRequestDigest(offerBytes),
  };
  const paymentIntent = encodeClaim(intent);
  const bytes = encodePaymentSignature({
    paymentIntent,
    starkProof: (options.proof ?? standInProof)(paymentIntent),
    signature: options.key.sign(paymentIntent),
    humanityClaim: options.humanityClaim,
    delegationChain: options.delegationChain,
  });
  return { request, intent, bytes, header: Buffer.from(bytes).toString("base64") };
}
