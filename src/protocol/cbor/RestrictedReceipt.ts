import { CborError } from "./CborError.js";
import { CborFields } from "./CborFields.js";
import type { CborValue } from "./CborValue.js";
import { CLAIM_PARTS, isClaimPart, readClaimPart, type ClaimPart } from "./Claim.js";
import { decodeCanonical } from "./decodeCanonical.js";
import { encodeCanonical } from "./encodeCanonical.js";
import { RECEIPT_COMMITMENT_BYTES, RECEIPT_SALT_BYTES, commitClaimPart } from "./receiptCommitments.js";

/** A claim part shown with its salt: its commitment is recomputed from the two. */
export interface RevealedPart {
  salt: Uint8Array;
  /** The part's CBOR value as it sits in the claim array (e.g. `CborTag(1, seconds)` for `time`). */
  value: CborValue;
}

/** A claim part kept hidden: only its commitment SHA-256(salt ‖ part). */
export interface HiddenPart {
  commitment: Uint8Array;
}

/**
 * A receipt whose holder hid some claim parts (v0.3): `{ parts, signature, signer }`, `parts` the six
 * claim parts in order, each `[salt, value]` (revealed) or a 32-byte commitment (hidden). The
 * facilitator's signature is the original one, over the six commitments.
 */
export interface RestrictedReceipt {
  parts: Array<RevealedPart | HiddenPart>;
  signature: Uint8Array;
  signer: Uint8Array;
}

/** What opens hidden parts for an auditor: part name → `[salt, value]` (CBOR: a map of those). */
export type ReceiptOpenings = Partial<Record<ClaimPart, RevealedPart>>;

export function isRevealedPart(part: RevealedPart | HiddenPart): part is RevealedPart {
  return "salt" in part;
}

const WHAT = "RestrictedReceipt";

export function encodeRestrictedReceipt(receipt: RestrictedReceipt): Uint8Array {
  return encodeCanonical(
    new Map<string, CborValue>([
      [
        "parts",
        receipt.parts.map((part) => (isRevealedPart(part) ? [part.salt, part.value] : part.commitment)),
      ],
      ["signature", receipt.signature],
      ["signer", receipt.signer],
    ]),
  );
}

export function decodeRestrictedReceipt(bytes: Uint8Array): RestrictedReceipt {
  const fields = CborFields.decode(bytes, WHAT);
  const parts = fields.any("parts");
  const receipt = { signature: fields.bytes("signature"), signer: fields.bytes("signer") };
  fields.done();
  if (!Array.isArray(parts) || parts.length !== CLAIM_PARTS.length) {
    throw new CborError("wrong_type", "expected an array of six parts", `${WHAT}.parts`);
  }
  return {
    parts: parts.map((part, index) => {
      const name = CLAIM_PARTS[index] as ClaimPart;
      if (part instanceof Uint8Array) {
        if (part.length !== RECEIPT_COMMITMENT_BYTES) {
          throw new CborError("wrong_value", "expected a 32-byte commitment", `${WHAT}.parts.${name}`);
        }
        return { commitment: part };
      }
      return readRevealedPart(name, part, `${WHAT}.parts.${name}`);
    }),
    ...receipt,
  };
}

export function encodeReceiptOpenings(openings: ReceiptOpenings): Uint8Array {
  return encodeCanonical(
    new Map<string, CborValue>(
      Object.entries(openings).map(([name, part]) => [name, [part.salt, part.value]] as [string, CborValue]),
    ),
  );
}

export function decodeReceiptOpenings(bytes: Uint8Array): ReceiptOpenings {
  const value = decodeCanonical(bytes, { expect: "map", what: "ReceiptOpenings" });
  const openings: ReceiptOpenings = {};
  for (const [name, part] of value) {
    if (!isClaimPart(name)) {
      throw new CborError("unknown_key", `unknown claim part ${JSON.stringify(name)}`, "ReceiptOpenings");
    }
    openings[name] = readRevealedPart(name, part, `ReceiptOpenings.${name}`);
  }
  return openings;
}

/** `[salt, value]` with a 16-byte salt and a value that is a well-formed `name` part. */
function readRevealedPart(name: ClaimPart, part: CborValue, at: string): RevealedPart {
  if (!Array.isArray(part) || part.length !== 2 || !(part[0] instanceof Uint8Array)) {
    throw new CborError("wrong_type", "expected [salt, value] or a commitment", at);
  }
  const [salt, value] = part as [Uint8Array, CborValue];
  if (salt.length !== RECEIPT_SALT_BYTES) {
    throw new CborError("wrong_value", `expected a ${RECEIPT_SALT_BYTES}-byte salt`, at);
  }
  readClaimPart(name, value);
  return { salt, value };
}

/** The six commitments a restricted receipt stands for: recomputed where revealed, as given where hidden. */
export function restrictedReceiptCommitments(receipt: RestrictedReceipt): Uint8Array[] {
  if (receipt.parts.length !== CLAIM_PARTS.length) {
    throw new CborError("wrong_type", "expected an array of six parts", `${WHAT}.parts`);
  }
  return receipt.parts.map((part) =>
    isRevealedPart(part) ? commitClaimPart(part.salt, part.value) : part.commitment,
  );
}
