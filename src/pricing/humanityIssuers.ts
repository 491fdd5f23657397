import {
  parsePublicKeys,
  publicKeyListSchema,
  publicKeyProblem,
  publicKeysProblem,
} from "../protocol/cbor/publicKeyList.js";

/** What is wrong with one issuer key in hex, or `undefined` when it is an Ed25519 or ML-DSA-65 public key. */
export const issuerKeyProblem = publicKeyProblem;

/** The first problem of a list of issuer keys (a bad key, or the same key twice), with its index. */
export const issuerKeysProblem = publicKeysProblem;

/** Issuer keys from config (hex) to bytes; throws a RangeError naming the entry for anything else. */
export function parseHumanityIssuers(list: readonly string[]): Uint8Array[] {
  return parsePublicKeys(list, "humanityIssuers");
}

/** `humanityIssuers`: the humanity-claim issuers a CBOR route trusts, as public keys in hex. */
export const humanityIssuersSchema = publicKeyListSchema(
  "Humanity-claim issuers trusted by routes with `acceptsHumanityGate`: public keys in hex (Ed25519: 64 characters; ML-DSA-65: 3904).",
);
