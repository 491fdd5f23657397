import { createHash } from "node:crypto";
import { CborFields } from "../protocol/cbor/CborFields.js";
import type { CborValue } from "../protocol/cbor/CborValue.js";
import { issueHumanityClaim } from "../protocol/cbor/checkHumanityClaim.js";
import { encodeCanonical } from "../protocol/cbor/encodeCanonical.js";
import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";
import { createSigningKey, type SigningKey } from "../protocol/cbor/signatures.js";

/**
 * The local stack's DEMO humanity issuer: an Ed25519 key derived from a public, well-known seed (like
 * the demo payers), that vouches "is_human" for ANY subject that asks. It proves nothing about anyone:
 * it exists so the humanity gate can be tried end to end on one machine. Never trust it elsewhere.
 */
export const DEMO_HUMANITY_ISSUER_LABEL = "issuer:x402-local-demo (test key, vouches for anyone)";
export const DEMO_HUMANITY_NOTICE =
  "DEMO humanity issuer: a public test key that issues an is_human claim to any subject; it proves nothing";
/** How long a demo claim stays valid, in seconds. */
export const DEMO_HUMANITY_CLAIM_SECONDS = 3600;

export function demoHumanityIssuer(): SigningKey {
  const seed = createHash("sha256").update("x402-gateway local demo humanity issuer (ed25519)").digest();
  return createSigningKey("ed25519", new Uint8Array(seed));
}

/** The demo issuer's answer to a request for `subject`: a claim valid for an hour from `nowMs`. */
export function issueDemoHumanityClaim(issuer: SigningKey, subject: Uint8Array, nowMs: number): Uint8Array {
  return issueHumanityClaim(issuer, {
    subject,
    label: DEMO_HUMANITY_ISSUER_LABEL,
    validUntil: Math.floor(nowMs / 1000) + DEMO_HUMANITY_CLAIM_SECONDS,
    evidence: "demo:none (the local demo issuer checks nothing)",
  });
}

/** Body of `POST /humanity` on the local CBOR facilitator: `{ subject: bstr }` in canonical CBOR. */
export function encodeHumanityRequest(subject: Uint8Array): Uint8Array {
  return encodeCanonical(new Map<string, CborValue>([["subject", subject]]));
}

export function decodeHumanityRequest(bytes: Uint8Array): Uint8Array {
  const fields = CborFields.decode(bytes, "humanity request");
  const subject = fields.bytes("subject");
  fields.done();
  return subject;
}

/** Ask a demo issuer (`{facilitator}/humanity`) for a humanity claim about `subject`; returns its bytes. */
export async function requestDemoHumanityClaim(
  issuerUrl: string,
  subject: Uint8Array,
  fetchImpl: typeof fetch = fetch,
): Promise<Uint8Array> {
  const response = await fetchImpl(issuerUrl, {
    method: "POST",
    headers: { "content-type": CBOR_MEDIA_TYPE, accept: CBOR_MEDIA_TYPE },
    body: Buffer.from(encodeHumanityRequest(subject)),
  });
  const body = new Uint8Array(await response.arrayBuffer());
  if (response.status !== 200) {
    throw new Error(
      `the humanity issuer at ${issuerUrl} answered ${response.status}: ${Buffer.from(body).toString()}`,
    );
  }
  return body;
}
