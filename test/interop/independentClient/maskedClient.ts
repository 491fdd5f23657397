/**
 * Paying a route whose offer has a revelation mask, from docs/cbor.md ("Revelation masks") alone:
 * cborg, @noble and @hpke/core (RFC 9180). Imports nothing from the project's `src/`.
 */
import { Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from "@hpke/core";
import { ed25519 } from "@noble/curves/ed25519";
import { sha256 } from "@noble/hashes/sha2";
import { randomBytes } from "@noble/hashes/utils";
import { CBOR_TYPE, Tagged, cborDecode, cborEncode, type Payer } from "./client.js";

const ZK_LABEL = "x402-gateway/stand-in-zk-proof/v0.3 (NOT a zero-knowledge proof)\n";
const STAND_IN_LABEL = "x402-gateway/stand-in-proof/v0.3 (NOT a STARK proof)\n";
const RECEIPT_DOMAIN = "x402+cbor/v0.3/receipt";
const PARTS = ["subject", "predicate", "object", "quantity", "time", "context"] as const;
type Part = (typeof PARTS)[number];

const utf8 = (text: string) => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));
const buffer = (bytes: Uint8Array) => Uint8Array.from(bytes).buffer;
const suite = new CipherSuite({
  kem: new DhkemX25519HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes128Gcm(),
});

/** HPKE base-mode Seal to the facilitator's key: `enc ‖ ciphertext`, AAD = the intent's context. */
async function seal(
  key: Uint8Array,
  plaintext: Uint8Array,
  info: string,
  aad: Uint8Array,
): Promise<Uint8Array> {
  const recipientPublicKey = await suite.kem.deserializePublicKey(buffer(key));
  const { enc, ct } = await suite.seal(
    { recipientPublicKey, info: buffer(utf8(info)) },
    buffer(plaintext),
    buffer(aad),
  );
  return concat(new Uint8Array(enc), new Uint8Array(ct));
}

/** `build(zeros)` encoded at exactly `size` bytes: the zeros (at least 256, so a 3-byte head) fill it. */
function padded(build: (pad: Uint8Array) => unknown, size: number): Uint8Array {
  const length = size - (cborEncode(build(new Uint8Array(0))).length - 1) - 3;
  if (length < 256) throw new Error(`does not fit in ${size} bytes`);
  return cborEncode(build(new Uint8Array(length)));
}

/** `/supported`'s `hpkeKey`: suite 0x0020 / 0x0001 / 0x0001 and the raw X25519 key in base64. */
export async function hpkeKeyOf(facilitatorUrl: string): Promise<Uint8Array> {
  const supported = (await (await fetch(`${facilitatorUrl}/supported`)).json()) as {
    hpkeKey: { kemId: number; kdfId: number; aeadId: number; publicKey: string };
  };
  const { kemId, kdfId, aeadId, publicKey } = supported.hpkeKey;
  if (kemId !== 0x20 || kdfId !== 1 || aeadId !== 1) throw new Error("another HPKE suite");
  return fromBase64(publicKey);
}

export interface MaskedPaid {
  status: number;
  error: string | null;
  /** The receipt's subject opened by the payer, checked against the facilitator's signature. */
  openedSubject: Uint8Array | undefined;
  /** Whether the subject was hidden in the receipt the gateway passed on. */
  receiptHidesSubject: boolean;
}

/** Fetch the offer and its mask (checked against the ref), pay with the hidden parts, open the receipt. */
export async function payMasked(
  url: string,
  payer: Payer,
  nowSeconds: number,
  facilitatorUrl: string,
): Promise<MaskedPaid> {
  const offered = await fetch(url, { headers: { accept: CBOR_TYPE } });
  const offer = new Uint8Array(await offered.arrayBuffer());
  const request = cborDecode(offer) as Map<string, unknown>;
  const document = fromBase64(offered.headers.get("x402-revelation-mask") ?? "");
  if (request.get("revelation_mask_ref") !== `mask:v0.3:sha256:${hex(sha256(document))}`) {
    throw new Error("the mask document is not the one the offer names");
  }
  const tags = (cborDecode(document) as Map<string, Map<string, string>>).get("intent")!;
  const key = await hpkeKeyOf(facilitatorUrl);
  const context = sha256(offer);
  const clear: unknown[] = [
    payer.publicKey,
    "pays",
    request.get("merchant_pseudonym"),
    [request.get("currency"), request.get("amount")],
    new Tagged(1, nowSeconds),
    context,
  ];
  const salts = new Map<Part, Uint8Array>();
  const openings = new Map<string, unknown>();
  const wire: unknown[] = [];
  for (const [index, part] of PARTS.entries()) {
    const value = clear[index];
    const tag = tags.get(part);
    const salt = randomBytes(16);
    if (tag === "Open") wire.push(value);
    else if (tag === "Commit") {
      salts.set(part, salt);
      openings.set(part, [salt, value]);
      wire.push(new Map([["commit", sha256(concat(salt, cborEncode(value)))]]));
    } else if (tag === "Encrypted") {
      salts.set(part, salt);
      // A hidden subject is padded: [salt, key, zeros] of exactly 2,304 bytes (the key's length stays hidden).
      const plain =
        part === "subject" ? padded((pad) => [salt, value, pad], 2304) : cborEncode([salt, value]);
      const sealed = await seal(key, plain, `x402+cbor/v0.3/mask/encrypted/${part}`, context);
      wire.push(new Map([["hpke", sealed]]));
    } else if (tag === "ZK") {
      wire.push(new Map([["zk", sha256(concat(utf8(ZK_LABEL), utf8(part), context))]]));
    } else throw new Error(`unknown tag ${tag}`);
  }
  const intent = cborEncode(wire);
  const payment = new Map<string, Uint8Array>([
    ["payment_intent", intent],
    ["stark_proof", sha256(concat(utf8(STAND_IN_LABEL), intent))],
  ]);
  const signature = ed25519.sign(intent, payer.secretKey);
  // A hidden subject: the signature goes sealed in the openings, padded to exactly 6,144 bytes.
  const hidden = tags.get("subject") !== "Open";
  if (hidden) openings.set("signature", signature);
  else payment.set("signature", signature);
  if (openings.size > 0) {
    const plain = hidden ? padded((pad) => new Map([...openings, ["pad", pad]]), 6144) : cborEncode(openings);
    payment.set("openings", await seal(key, plain, "x402+cbor/v0.3/mask/openings", context));
  }
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": CBOR_TYPE,
      "payment-signature": Buffer.from(cborEncode(payment)).toString("base64"),
    },
  });
  await response.arrayBuffer();
  const header = response.headers.get("payment-response");
  const paid: MaskedPaid = {
    status: response.status,
    error: response.headers.get("x402-error"),
    openedSubject: undefined,
    receiptHidesSubject: false,
  };
  if (header === null) return paid;
  // A RestrictedReceipt { parts, signature, signer }: [salt, value] revealed, bstr(32) hidden.
  const receipt = cborDecode(fromBase64(header)) as Map<string, unknown>;
  const parts = receipt.get("parts") as Array<Uint8Array | [Uint8Array, unknown]>;
  const subjectSalt = salts.get("subject");
  paid.receiptHidesSubject = parts[0] instanceof Uint8Array;
  if (!paid.receiptHidesSubject || subjectSalt === undefined) return paid;
  const opened = sha256(concat(subjectSalt, cborEncode(payer.publicKey)));
  if (hex(opened) !== hex(parts[0] as Uint8Array)) return paid;
  const commitments = parts.map((entry) =>
    entry instanceof Uint8Array ? entry : sha256(concat(entry[0], cborEncode(entry[1]))),
  );
  const signed = cborEncode([RECEIPT_DOMAIN, commitments]);
  const facilitatorKey = fromBase64(
    ((await (await fetch(`${facilitatorUrl}/supported`)).json()) as { receiptKey: { publicKey: string } })
      .receiptKey.publicKey,
  );
  if (ed25519.verify(receipt.get("signature") as Uint8Array, signed, facilitatorKey))
    paid.openedSubject = payer.publicKey;
  return paid;
}
