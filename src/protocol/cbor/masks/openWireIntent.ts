import { timingSafeEqual } from "node:crypto";
import { CborError } from "../CborError.js";
import type { CborValue } from "../CborValue.js";
import { CLAIM_PARTS, isClaimPart, readClaimPart, readSubject, type ClaimPart } from "../Claim.js";
import { decodeCanonical } from "../decodeCanonical.js";
import { RECEIPT_SALT_BYTES, commitClaimPart } from "../receiptCommitments.js";
import { checkIntentForm } from "./checkIntentForm.js";
import { MASK_INFO_ENCRYPTED_PREFIX, MASK_INFO_OPENINGS, type MaskHpkeKey } from "./maskHpke.js";
import type { RevelationMask } from "./RevelationMask.js";
import { isStandInZkProof } from "./standInZkProof.js";
import {
  HIDDEN_PAYER_OPENINGS_BYTES,
  HIDDEN_SUBJECT_SEALED_BYTES,
  hidesSubject,
  isZeroPad,
} from "./maskPadding.js";
import type { IntentView, WireIntent } from "./WireIntent.js";

/** The intent as the facilitator reads it: Commit and Encrypted parts opened, with their salts. */
export interface OpenedIntent {
  /** Every part but a ZK one (its value never travels). */
  claim: IntentView;
  /** The salt of each opened part (a receipt commits to the same part with it). */
  salts: Partial<Record<ClaimPart, Uint8Array>>;
  /** The signature sealed in the openings, when the mask hides the subject. */
  signature?: Uint8Array | undefined;
}

/** Why an intent does not open; `reason` starts with the refusal's word. */
export type OpenRefusal = { ok: false; reason: string };

/**
 * Facilitator side: check the intent against its mask and open what is hidden — the Commit parts from
 * the sealed `openings` (each must match its commitment), the Encrypted parts with `key` — and check
 * each ZK slot's stand-in proof. The AAD of everything sealed is the intent's context. When the mask
 * hides the subject, the openings are exactly HIDDEN_PAYER_OPENINGS_BYTES and hold the signature, and
 * an Encrypted subject is exactly HIDDEN_SUBJECT_SEALED_BYTES, both with a zero pad.
 */
export async function openWireIntent(
  wire: WireIntent,
  mask: RevelationMask,
  openings: Uint8Array | undefined,
  key: MaskHpkeKey,
): Promise<({ ok: true } & OpenedIntent) | OpenRefusal> {
  const violation = checkIntentForm(mask, wire);
  if (violation !== undefined) {
    return refuse(
      "mask_violation",
      `${violation.part} is ${violation.received}, the mask says ${violation.expected}`,
    );
  }
  const context = wire.view.context;
  const commits = CLAIM_PARTS.filter((part) => mask.intent[part] === "Commit");
  const hidden = hidesSubject(mask);
  if ((openings !== undefined) !== (commits.length > 0 || hidden)) {
    return refuse("mask_violation", openings === undefined ? "openings missing" : "openings unexpected");
  }
  const claim: Record<string, unknown> = { ...wire.view };
  const salts: OpenedIntent["salts"] = {};
  const opened = new Map<ClaimPart, [Uint8Array, CborValue]>();
  let signature: Uint8Array | undefined;
  try {
    if (openings !== undefined) {
      const plain = await key.open(openings, MASK_INFO_OPENINGS, context);
      if (hidden && plain.length !== HIDDEN_PAYER_OPENINGS_BYTES)
        return refuse("mask_violation", `openings not padded to ${HIDDEN_PAYER_OPENINGS_BYTES} bytes`);
      const map = decodeCanonical(plain, { expect: "map", what: "openings" });
      for (const [name, entry] of map) {
        if (hidden && name === "signature" && entry instanceof Uint8Array) signature = entry;
        else if (hidden && name === "pad" && isZeroPad(entry)) continue;
        else if (!isClaimPart(name) || !commits.includes(name))
          return refuse("mask_violation", `opening of ${name}`);
        else opened.set(name, readOpening(entry, `openings.${name}`));
      }
      if (hidden && (signature === undefined || !map.has("pad")))
        return refuse("mask_violation", "the sealed signature or its pad is missing");
      if (opened.size !== commits.length) return refuse("mask_violation", "an opening is missing");
    }
    for (const part of CLAIM_PARTS) {
      const form = wire.hidden[part];
      if (form?.tag === "Commit") {
        const [salt, value] = opened.get(part) as [Uint8Array, CborValue];
        const expected = commitClaimPart(salt, value);
        if (!timingSafeEqual(expected, form.commitment)) return refuse("commitment_mismatch", part);
        setPart(claim, part, value, salts, salt);
      } else if (form?.tag === "Encrypted") {
        const plain = await key.open(form.sealed, `${MASK_INFO_ENCRYPTED_PREFIX}${part}`, context);
        const entry = decodeCanonical(plain, { expect: "array", what: part });
        if (part === "subject") {
          if (plain.length !== HIDDEN_SUBJECT_SEALED_BYTES || !isZeroPad(entry.pop()))
            return refuse("mask_violation", `subject not padded to ${HIDDEN_SUBJECT_SEALED_BYTES} bytes`);
        }
        const [salt, value] = readOpening(entry, part);
        setPart(claim, part, value, salts, salt);
      } else if (form?.tag === "ZK" && !isStandInZkProof(form.proof, part, context)) {
        return refuse("stand_in_zk_proof_mismatch", part);
      }
    }
  } catch (error) {
    if (error instanceof CborError) return refuse("mask_violation", error.message);
    // @hpke/core throws OpenError for a tampered or misdirected ciphertext.
    return refuse("hpke_open_failed", (error as Error).name);
  }
  return { ok: true, claim: claim as unknown as IntentView, salts, signature };
}

function readOpening(entry: CborValue, at: string): [Uint8Array, CborValue] {
  if (
    !Array.isArray(entry) ||
    entry.length !== 2 ||
    !(entry[0] instanceof Uint8Array) ||
    entry[0].length !== RECEIPT_SALT_BYTES
  ) {
    throw new CborError("wrong_type", `expected [salt (${RECEIPT_SALT_BYTES} bytes), value]`, at);
  }
  return [entry[0], entry[1] as CborValue];
}

function setPart(
  claim: Record<string, unknown>,
  part: ClaimPart,
  value: CborValue,
  salts: OpenedIntent["salts"],
  salt: Uint8Array,
): void {
  claim[part] = readClaimPart(part, value);
  if (part === "subject") {
    const { signer } = readSubject(value);
    if (signer !== undefined) claim.signer = signer;
  }
  salts[part] = salt;
}

function refuse(word: string, detail: string): OpenRefusal {
  return { ok: false, reason: `${word}: ${detail}` };
}
