import { z } from "zod/v4";
import { ED25519_PUBLIC_KEY_BYTES, ML_DSA_65_PUBLIC_KEY_BYTES } from "../protocol/cbor/profile.js";

const ED25519_HEX = ED25519_PUBLIC_KEY_BYTES * 2;
const ML_DSA_65_HEX = ML_DSA_65_PUBLIC_KEY_BYTES * 2;

/** What is wrong with one issuer key in hex, or `undefined` when it is an Ed25519 or ML-DSA-65 public key. */
export function issuerKeyProblem(text: string): string | undefined {
  if (/^0x/i.test(text)) return "write the key in plain hex, without 0x";
  if (!/^[0-9a-fA-F]*$/.test(text)) return "expected hex digits only (0-9, a-f)";
  if (text.length !== ED25519_HEX && text.length !== ML_DSA_65_HEX) {
    return `expected an Ed25519 public key (${ED25519_HEX} hex characters) or an ML-DSA-65 public key (${ML_DSA_65_HEX}); got ${text.length} characters`;
  }
  return undefined;
}

/** The first problem of a list of issuer keys (a bad key, or the same key twice), with its index. */
export function issuerKeysProblem(list: readonly string[]): { index: number; message: string } | undefined {
  const seen = new Map<string, number>();
  for (const [index, text] of list.entries()) {
    const problem = issuerKeyProblem(text);
    if (problem !== undefined) return { index, message: problem };
    const key = text.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) return { index, message: `the same key as entry ${first}` };
    seen.set(key, index);
  }
  return undefined;
}

/** Issuer keys from config (hex) to bytes; throws a RangeError naming the entry for anything else. */
export function parseHumanityIssuers(list: readonly string[]): Uint8Array[] {
  const problem = issuerKeysProblem(list);
  if (problem !== undefined) throw new RangeError(`humanityIssuers[${problem.index}]: ${problem.message}`);
  return list.map((text) => new Uint8Array(Buffer.from(text, "hex")));
}

/** `humanityIssuers`: the humanity-claim issuers a CBOR route trusts, as public keys in hex. */
export const humanityIssuersSchema = z
  .array(z.string())
  .superRefine((list, context) => {
    const problem = issuerKeysProblem(list);
    if (problem !== undefined)
      context.addIssue({ code: "custom", message: problem.message, path: [problem.index] });
  })
  .meta({
    description:
      "Humanity-claim issuers trusted by routes with `acceptsHumanityGate`: public keys in hex (Ed25519: 64 characters; ML-DSA-65: 3904).",
  });
