import type { CipherSuite } from "@hpke/core";
import { base64OfBytes } from "../../../common/bytes.js";

/**
 * HPKE (RFC 9180) for revelation masks, base mode: DHKEM(X25519, HKDF-SHA256) (KEM 0x0020), HKDF-SHA256
 * (KDF 0x0001), AES-128-GCM (AEAD 0x0001), through `@hpke/core`. A sealed value on the wire is
 * `enc (32 bytes) ‖ ciphertext`; the AAD is always the intent's `context` (the offer's digest).
 */
export const MASK_HPKE_SUITE = { kemId: 0x0020, kdfId: 0x0001, aeadId: 0x0001 } as const;
/** Bytes of the KEM's encapsulated key (an X25519 public key). */
export const MASK_HPKE_ENC_BYTES = 32;
/** Bytes of the AEAD tag: a sealed value is at least enc + tag. */
export const MASK_HPKE_TAG_BYTES = 16;

/** `info` of an Encrypted intent part: this prefix, then the part name (`…/encrypted/subject`). */
export const MASK_INFO_ENCRYPTED_PREFIX = "x402+cbor/v0.3/mask/encrypted/";
/** `info` of the openings of the Commit parts (the PaymentSignature's `openings`). */
export const MASK_INFO_OPENINGS = "x402+cbor/v0.3/mask/openings";

let suiteLoaded: Promise<CipherSuite> | undefined;

/** The suite, `@hpke/core` loaded on first use (docs/dependencies.md: a route without masks never loads it). */
function hpkeSuite(): Promise<CipherSuite> {
  suiteLoaded ??= import("@hpke/core").then(
    ({ Aes128Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 }) =>
      new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() }),
  );
  return suiteLoaded;
}

/** A facilitator's HPKE key pair, derived from a 32-byte seed (RFC 9180 DeriveKeyPair). */
export interface MaskHpkeKey {
  /** The 32-byte X25519 public key, published at `/supported`. */
  publicKey: Uint8Array;
  open(sealed: Uint8Array, info: string, aad: Uint8Array): Promise<Uint8Array>;
}

export async function deriveMaskHpkeKey(seed: Uint8Array): Promise<MaskHpkeKey> {
  const suite = await hpkeSuite();
  const pair = await suite.kem.deriveKeyPair(toBuffer(seed));
  const publicKey = new Uint8Array(await suite.kem.serializePublicKey(pair.publicKey));
  return {
    publicKey,
    async open(sealed, info, aad) {
      if (sealed.length < MASK_HPKE_ENC_BYTES + MASK_HPKE_TAG_BYTES)
        throw new Error("too short to be sealed");
      const plain = await suite.open(
        {
          recipientKey: pair,
          enc: toBuffer(sealed.subarray(0, MASK_HPKE_ENC_BYTES)),
          info: toBuffer(new TextEncoder().encode(info)),
        },
        toBuffer(sealed.subarray(MASK_HPKE_ENC_BYTES)),
        toBuffer(aad),
      );
      return new Uint8Array(plain);
    },
  };
}

/** Seal `plaintext` to a facilitator's published key: `enc ‖ ciphertext`. */
export async function sealToFacilitator(
  publicKey: Uint8Array,
  plaintext: Uint8Array,
  info: string,
  aad: Uint8Array,
): Promise<Uint8Array> {
  const suite = await hpkeSuite();
  const recipientPublicKey = await suite.kem.deserializePublicKey(toBuffer(publicKey));
  const { enc, ct } = await suite.seal(
    { recipientPublicKey, info: toBuffer(new TextEncoder().encode(info)) },
    toBuffer(plaintext),
    toBuffer(aad),
  );
  const sealed = new Uint8Array(enc.byteLength + ct.byteLength);
  sealed.set(new Uint8Array(enc), 0);
  sealed.set(new Uint8Array(ct), enc.byteLength);
  return sealed;
}

/** A fresh ArrayBuffer of exactly these bytes (a Buffer's `.buffer` may be a shared pool). */
function toBuffer(bytes: Uint8Array): ArrayBuffer {
  return Uint8Array.from(bytes).buffer;
}

/** How a facilitator publishes its HPKE key (the `hpkeKey` of its `/supported`, JSON). */
export function publishedMaskKey(key: Pick<MaskHpkeKey, "publicKey">): {
  suite: string;
  kemId: number;
  kdfId: number;
  aeadId: number;
  publicKey: string;
} {
  return {
    suite: "DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM",
    ...MASK_HPKE_SUITE,
    publicKey: base64OfBytes(key.publicKey),
  };
}
