import { z } from "zod/v4";
import { ED25519_PUBLIC_KEY_BYTES, ML_DSA_65_PUBLIC_KEY_BYTES } from "./profile.js";
import { bytesOfCheckedHex } from "../../common/bytes.js";

const ED25519_HEX = ED25519_PUBLIC_KEY_BYTES * 2;
const ML_DSA_65_HEX = ML_DSA_65_PUBLIC_KEY_BYTES * 2;

/** What is wrong with one public key in hex, or `undefined` when it is an Ed25519 or ML-DSA-65 key. */
export function publicKeyProblem(text: string): string | undefined {
  if (/^0x/i.test(text)) return "write the key in plain hex, without 0x";
  if (!/^[0-9a-fA-F]*$/.test(text)) return "expected hex digits only (0-9, a-f)";
  if (text.length !== ED25519_HEX && text.length !== ML_DSA_65_HEX) {
    return `expected an Ed25519 public key (${ED25519_HEX} hex characters) or an ML-DSA-65 public key (${ML_DSA_65_HEX}); got ${text.length} characters`;
  }
  return undefined;
}

/** The first problem of a list of public keys (a bad key, or the same key twice), with its index. */
export function publicKeysProblem(list: readonly string[]): { index: number; message: string } | undefined {
  const seen = new Map<string, number>();
  for (const [index, text] of list.entries()) {
    const problem = publicKeyProblem(text);
    if (problem !== undefined) return { index, message: problem };
    const key = text.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) return { index, message: `the same key as entry ${first}` };
    seen.set(key, index);
  }
  return undefined;
}

/** Public keys from config (hex) to bytes; throws a RangeError naming `setting[index]` for anything else. */
export function parsePublicKeys(list: readonly string[], setting: string): Uint8Array[] {
  const problem = publicKeysProblem(list);
  if (problem !== undefined) throw new RangeError(`${setting}[${problem.index}]: ${problem.message}`);
  return list.map((text) => bytesOfCheckedHex(text));
}

/** A config list of Ed25519 / ML-DSA-65 public keys in hex, each checked, no key twice. */
export function publicKeyListSchema(description: string) {
  return z
    .array(z.string())
    .superRefine((list, context) => {
      const problem = publicKeysProblem(list);
      if (problem !== undefined)
        context.addIssue({ code: "custom", message: problem.message, path: [problem.index] });
    })
    .meta({ description });
}
