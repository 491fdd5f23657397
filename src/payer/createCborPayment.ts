import { decodeBase64 } from "../protocol/decodeBase64.js";
import { encodeClaim, type Claim, type ClaimPart } from "../protocol/cbor/Claim.js";
import { maskIntent, type MaskedIntent } from "../protocol/cbor/masks/maskIntent.js";
import { resolveMask } from "../protocol/cbor/masks/RevelationMask.js";
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

export interface MaskedCborPaymentOptions extends CborPaymentOptions {
  /** The 402's `X402-Revelation-Mask` (base64 or bytes): the document the offer's mask ref names by digest. */
  mask?: string | Uint8Array | undefined;
  /** The facilitator's HPKE public key (32 bytes, its `/supported` `hpkeKey.publicKey`): what hidden parts seal to. */
  facilitatorHpkeKey?: Uint8Array | undefined;
}

export interface CborPayment {
  /** The offer, decoded. */
  request: PaymentRequest;
  /** The signed six-part claim (in clear: the wire may hide parts of it). */
  intent: Claim;
  /** The canonical CBOR PaymentSignature. */
  bytes: Uint8Array;
  /** `PAYMENT-SIGNATURE` header value: base64 of `bytes`. */
  header: string;
  /** The salts of the intent parts the mask hid (they open the receipt's commitments of the same parts). */
  salts?: Partial<Record<ClaimPart, Uint8Array>>;
}

/**
 * Answer a CBOR offer: the intent "key pays merchant amount currency now, answering this request"
 * (context = SHA-256 of the offer's canonical bytes), signed over its exact bytes, wrapped in a
 * PaymentSignature. Throws CborError for an offer that is not a canonical PaymentRequest. For an offer
 * whose revelation mask hides parts, use {@link createMaskedCborPayment}.
 */
export function createCborPayment(options: CborPaymentOptions): CborPayment {
  const { request, intent } = intentFor(options);
  const paymentIntent = encodeClaim(intent);
  return wrap(options, request, intent, { paymentIntent, signature: options.key.sign(paymentIntent) });
}

/**
 * {@link createCborPayment} under the offer's revelation mask (docs/cbor.md, Revelation masks): the
 * mask document must be the one the offer's `revelation_mask_ref` names; the hidden parts are
 * committed, sealed to `facilitatorHpkeKey` or proven by the stand-in. A masked intent must be signed
 * by a ServiceAuthSigner key (Ed25519 or ML-DSA-65).
 */
export async function createMaskedCborPayment(options: MaskedCborPaymentOptions): Promise<CborPayment> {
  const { request, intent } = intentFor(options);
  const document = typeof options.mask === "string" ? decodeBase64(options.mask) : options.mask;
  const mask = resolveMask(request.revelationMaskRef, document);
  const masked = await maskIntent(intent, mask, options.facilitatorHpkeKey, (bytes) =>
    options.key.sign(bytes),
  );
  const payment = wrap(options, request, intent, masked);
  return { ...payment, salts: masked.salts };
}

function intentFor(options: CborPaymentOptions): { request: PaymentRequest; intent: Claim } {
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
  return { request, intent };
}

function wrap(
  options: CborPaymentOptions,
  request: PaymentRequest,
  intent: Claim,
  { paymentIntent, signature, openings }: Pick<MaskedIntent, "paymentIntent" | "signature" | "openings">,
): CborPayment {
  const bytes = encodePaymentSignature({
    paymentIntent,
    starkProof: (options.proof ?? standInProof)(paymentIntent),
    signature,
    humanityClaim: options.humanityClaim,
    delegationChain: options.delegationChain,
    openings,
  });
  return { request, intent, bytes, header: Buffer.from(bytes).toString("base64") };
}
