/**
 * A paying x402+cbor client written from docs/cbor.md alone: cborg for canonical CBOR,
 * @noble for Ed25519 and SHA-256. It imports nothing from the project's `src/` (a test checks).
 */
import { ed25519 } from "@noble/curves/ed25519";
import { sha256 } from "@noble/hashes/sha2";
import { decode, encode, rfc8949EncodeOptions, Token, Type } from "cborg";

export const CBOR_TYPE = "application/x402+cbor";
/** docs/cbor.md, "The local stack and the stand-in proof": the label, one newline, 53 bytes. */
const STAND_IN_LABEL = "x402-gateway/stand-in-proof/v0.3 (NOT a STARK proof)\n";
/** docs/cbor.md, "What is signed": the receipt signature's domain. */
const RECEIPT_DOMAIN = "x402+cbor/v0.3/receipt";

/** A CBOR tag (0: date text, 1: epoch seconds) kept as such through decode and encode. */
export class Tagged {
  constructor(
    readonly tag: number,
    readonly value: string | number,
  ) {}
}

const TWO_64 = 2n ** 64n;
const hexOf = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

const tags: Array<(inner: unknown) => unknown> = [];
tags[0] = (inner) => new Tagged(0, inner as string);
tags[1] = (inner) => new Tagged(1, inner as number);
// docs/cbor.md, "Wire format": past 2^64 - 1 an integer is tag 2 over its big-endian bytes, no leading zero.
tags[2] = (inner) => {
  const bytes = inner as Uint8Array;
  if (bytes.length <= 8 || bytes[0] === 0) throw new Error("a bignum not in preferred serialization");
  return BigInt(`0x${hexOf(bytes)}`);
};

export function cborDecode(bytes: Uint8Array): unknown {
  return decode(bytes, { tags, useMaps: true, rejectDuplicateMapKeys: true });
}

export function cborEncode(value: unknown): Uint8Array {
  return encode(value, {
    ...rfc8949EncodeOptions,
    typeEncoders: {
      Object: (object: unknown) => {
        if (!(object instanceof Tagged)) return null;
        const inner =
          typeof object.value === "string"
            ? new Token(Type.string, object.value)
            : new Token(Type.uint, object.value);
        return [new Token(Type.tag, object.tag), inner];
      },
      bigint: (value: unknown) => {
        const n = value as bigint;
        if (n < TWO_64) return null;
        const digits = n.toString(16);
        const bytes = Buffer.from(digits.length % 2 === 0 ? digits : `0${digits}`, "hex");
        return [new Token(Type.tag, 2), new Token(Type.bytes, new Uint8Array(bytes))];
      },
    },
  });
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const utf8 = (text: string) => new TextEncoder().encode(text);

export interface Offer {
  bytes: Uint8Array;
  request: Map<string, unknown>;
}

/** Step 1: the unpaid GET; the 402's body is the CBOR PaymentRequest (also base64 in PAYMENT-REQUIRED). */
export async function fetchOffer(url: string): Promise<Offer> {
  const response = await fetch(url, { headers: { accept: CBOR_TYPE } });
  if (response.status !== 402) throw new Error(`expected 402, got ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const header = response.headers.get("payment-required");
  if (header === null || base64(fromBase64(header)) !== base64(bytes)) {
    throw new Error("PAYMENT-REQUIRED is not the body's bytes");
  }
  return { bytes, request: cborDecode(bytes) as Map<string, unknown> };
}

export interface Payer {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
}

export function freshPayer(): Payer {
  const secretKey = ed25519.utils.randomPrivateKey();
  return { secretKey, publicKey: ed25519.getPublicKey(secretKey) };
}

/** Step 2: the six-part intent `[subject, "pays", merchant, [currency, amount], tag 1 time, context]`. */
export function intentFor(offer: Offer, payer: Payer, nowSeconds: number): Uint8Array {
  const request = offer.request;
  return cborEncode([
    payer.publicKey,
    "pays",
    request.get("merchant_pseudonym"),
    [request.get("currency"), request.get("amount")],
    new Tagged(1, nowSeconds),
    sha256(offer.bytes),
  ]);
}

/** The PaymentSignature: the intent, the stand-in proof SHA-256(label ‖ intent), the Ed25519 signature. */
export function paymentSignature(intent: Uint8Array, payer: Payer): Uint8Array {
  return cborEncode(
    new Map<string, Uint8Array>([
      ["payment_intent", intent],
      ["stark_proof", sha256(concat(utf8(STAND_IN_LABEL), intent))],
      ["signature", ed25519.sign(intent, payer.secretKey)],
    ]),
  );
}

export interface Paid {
  status: number;
  body: string;
  receipt: Uint8Array | undefined;
}

/** Steps 2–4: the POST retry on the same path, empty body, the payment in PAYMENT-SIGNATURE. */
export async function pay(url: string, payer: Payer, nowSeconds: number): Promise<Paid> {
  const offer = await fetchOffer(url);
  const signed = paymentSignature(intentFor(offer, payer, nowSeconds), payer);
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": CBOR_TYPE, "payment-signature": base64(signed) },
  });
  const header = response.headers.get("payment-response");
  return {
    status: response.status,
    body: await response.text(),
    receipt: header === null ? undefined : fromBase64(header),
  };
}

/** Dev-only funding: `POST /fund` with `{ subject, currency, amount }`, answered `{ payer, balance }`. */
export async function fund(
  facilitatorUrl: string,
  subject: Uint8Array,
  currency: string,
  amount: number | bigint,
): Promise<{ payer: string; balance: number | bigint }> {
  const response = await fetch(`${facilitatorUrl}/fund`, {
    method: "POST",
    headers: { "content-type": CBOR_TYPE },
    body: cborEncode(
      new Map<string, unknown>([
        ["subject", subject],
        ["currency", currency],
        ["amount", amount],
      ]),
    ),
  });
  if (response.status !== 200) throw new Error(`fund: ${response.status}`);
  const answer = cborDecode(new Uint8Array(await response.arrayBuffer())) as Map<string, unknown>;
  return { payer: answer.get("payer") as string, balance: answer.get("balance") as number | bigint };
}

/** `/supported`'s `receiptKey.publicKey`: base64 of the 32 raw Ed25519 key bytes. */
export async function receiptKeyOf(facilitatorUrl: string): Promise<Uint8Array> {
  const supported = (await (await fetch(`${facilitatorUrl}/supported`)).json()) as {
    receiptKey: { algorithm: string; publicKey: string };
  };
  if (supported.receiptKey.algorithm !== "ed25519") throw new Error("not an Ed25519 receipt key");
  return fromBase64(supported.receiptKey.publicKey);
}

export type ReceiptClaim = [Uint8Array, string, string, [string, number | bigint], Tagged, Uint8Array];

/**
 * The receipt `{ claim, salts, signature, signer }`: c_i = SHA-256(salt_i ‖ CBOR of part i), the key
 * signs the CBOR of `["x402+cbor/v0.3/receipt", [c_0 … c_5]]`. Returns the claim when valid.
 */
export function verifyReceipt(receipt: Uint8Array, key: Uint8Array): ReceiptClaim | undefined {
  const map = cborDecode(receipt) as Map<string, unknown>;
  const claimBytes = map.get("claim") as Uint8Array;
  const salts = map.get("salts") as Uint8Array[];
  const signer = map.get("signer") as Uint8Array;
  const signature = map.get("signature") as Uint8Array;
  if (base64(signer) !== base64(key)) return undefined;
  const claim = cborDecode(claimBytes) as ReceiptClaim;
  if (claim.length !== 6 || salts.length !== 6 || claim[1] !== "was_paid") return undefined;
  if (base64(cborEncode(claim)) !== base64(claimBytes)) return undefined;
  const commitments = claim.map((part, i) => sha256(concat(salts[i]!, cborEncode(part))));
  const message = cborEncode([RECEIPT_DOMAIN, commitments]);
  return ed25519.verify(signature, message, key) ? claim : undefined;
}
