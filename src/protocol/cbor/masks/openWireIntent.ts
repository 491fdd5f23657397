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
import type { IntentView, WireIntent } from "./WireIntent.js";

/** The intent as the facilitator reads it: Commit and Encrypted parts opened, with their salts. */
export interface OpenedIntent {
  /** Every part but a ZK one (its value never travels). */
  claim: IntentView;
  /** The salt of each opened part (a receipt commits to the same part with it). */
  salts: Partial<Record<ClaimPart, Uint8Array>>;
}

/** Why an intent does not open; `reason` starts with the refusal's word. */
export type OpenRefusal = { ok: false; reason: string };

/**
 * Facilitator side: check the intent against its mask and open what is hidden — the Commit parts from
 * the sealed `openings` (each must match its commitment), the Encrypted parts with `key` — and check
 * each ZK slot's stand-in proof. The AAD of everything sealed is the intent's context.
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
  if ((openings !== undefined) !== commits.length > 0) {
    return refuse(
      "mask_violation",
      commits.length > 0 ? "openings missing" : "openings without a Commit part",
    );
  }
  const claim: Record<string, unknown> = { ...wire.view };
  const salts: OpenedIntent["salts"] = {};
  const opened = new Map<ClaimPart, [Uint8Array, CborValue]>();
  try {
    if (openings !== undefined) {
      const map = decodeCanonical(await key.open(openings, MASK_INFO_OPENINGS, context), {
        expect: "map",
        what: "openings",
      });
      for (const [name, entry] of map) {
        if (!isClaimPart(name) || !commits.includes(name))
          return refuse("mask_violation", `opening of ${name}`);
        opened.set(name, readOpening(entry, `openings.${name}`));
      }
      if (opened.size !== commits.length) return refuse("mask_violation", "an opening is missing");
    }
    for (const part of CLAIM_PARTS) {
      const hidden = wire.hidden[part];
      if (hidden?.tag === "Commit") {
        const [salt, value] = opened.get(part) as [Uint8Array, CborValue];
        const expected = commitClaimPart(salt, value);
        if (!timingSafeEqual(expected, hidden.commitment)) return refuse("commitment_mismatch", part);
        setPart(claim, part, value, salts, salt);
      } else if (hidden?.tag === "Encrypted") {
        const plain = await key.open(hidden.sealed, `${MASK_INFO_ENCRYPTED_PREFIX}${part}`, context);
        const [salt, value] = readOpening(decodeCanonical(plain, { expect: "array", what: part }), part);
        setPart(claim, part, value, salts, salt);
      } else if (hidden?.tag === "ZK" && !isStandInZkProof(hidden.proof, part, context)) {
        return refuse("stand_in_zk_proof_mismatch", part);
      }
    }
  } catch (error) {
    if (error instanceof CborError) return refuse("mask_violation", error.message);
    // @hpke/core throws OpenError for a tampered or misdirected ciphertext.
    return refuse("hpke_open_failed", (error as Error).name);
  }
  return { ok: true, claim: claim as unknown as IntentView, salts };
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
