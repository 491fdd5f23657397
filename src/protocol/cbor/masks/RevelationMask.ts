import { sha256Hex } from "../../../common/digests.js";
import { CborError } from "../CborError.js";
import { CborFields } from "../CborFields.js";
import type { CborMap, CborValue } from "../CborValue.js";
import { CLAIM_PARTS, type ClaimPart } from "../Claim.js";
import { encodeCanonical } from "../encodeCanonical.js";
import { DEFAULT_REVELATION_MASK_REF } from "../profile.js";

/** How a field travels (the seed's tags): in clear, as a salted commitment, HPKE-encrypted, or proven. */
export const MASK_TAGS = ["Open", "Commit", "Encrypted", "ZK"] as const;
export type MaskTag = (typeof MASK_TAGS)[number];

/** The three claim families a mask covers. */
export const MASK_SECTIONS = ["intent", "claims", "receipt"] as const;
export type MaskSection = (typeof MASK_SECTIONS)[number];

/** A tag for each of the six parts of each family (docs/cbor.md, Revelation masks). */
export type RevelationMask = Record<MaskSection, Record<ClaimPart, MaskTag>>;

/** The text a mask document's `mask` key holds (v0.3). */
export const MASK_DOCUMENT_LABEL = "x402+cbor/v0.3/mask";
/** Prefix of a ref that names a mask document by its SHA-256: `mask:v0.3:sha256:<64 hex>`. */
export const MASK_DIGEST_REF_PREFIX = "mask:v0.3:sha256:";

/**
 * The tags v0.3 allows for each part, by family. What the gateway matches the offer by (predicate,
 * merchant, quantity, context) stays Open; claims (grants, humanity claims) are signed by their issuers
 * over clear bytes; a receipt part can be a commitment, never an encryption (nobody could read it).
 */
export const ALLOWED_MASK_TAGS: Record<MaskSection, Record<ClaimPart, readonly MaskTag[]>> = {
  intent: {
    subject: ["Open", "Commit", "Encrypted"],
    predicate: ["Open"],
    object: ["Open"],
    quantity: ["Open"],
    time: ["Open", "Commit", "Encrypted", "ZK"],
    context: ["Open"],
  },
  claims: {
    subject: ["Open"],
    predicate: ["Open"],
    object: ["Open"],
    quantity: ["Open"],
    time: ["Open"],
    context: ["Open"],
  },
  receipt: {
    subject: ["Open", "Commit"],
    predicate: ["Open"],
    object: ["Open"],
    quantity: ["Open"],
    time: ["Open"],
    context: ["Open"],
  },
};

/** Every part Open: what `mask:v0.3:open-fields` names. */
export const OPEN_FIELDS_MASK: RevelationMask = {
  intent: allOpen(),
  claims: allOpen(),
  receipt: allOpen(),
};

/** A mask from a partial one: every part not named is Open. Checked like a decoded document. */
export function completeMask(partial: {
  [S in MaskSection]?: Partial<Record<ClaimPart, MaskTag>> | undefined;
}): RevelationMask {
  const mask = {} as RevelationMask;
  for (const section of MASK_SECTIONS) mask[section] = { ...allOpen(), ...partial[section] };
  checkMask(mask);
  return mask;
}

/** The canonical CBOR mask document: `{ mask: label, intent: {part: tag}, claims: …, receipt: … }`. */
export function encodeMaskDocument(mask: RevelationMask): Uint8Array {
  checkMask(mask);
  const map: CborMap = new Map<string, CborValue>([["mask", MASK_DOCUMENT_LABEL]]);
  for (const section of MASK_SECTIONS) {
    map.set(section, new Map<string, CborValue>(CLAIM_PARTS.map((part) => [part, mask[section][part]])));
  }
  return encodeCanonical(map);
}

const WHAT = "RevelationMask";

/** Read a mask document: canonical, every part of every family tagged, each tag one v0.3 allows. */
export function decodeMaskDocument(bytes: Uint8Array): RevelationMask {
  const fields = CborFields.decode(bytes, WHAT);
  const label = fields.text("mask");
  if (label !== MASK_DOCUMENT_LABEL) {
    throw new CborError("wrong_value", `expected "${MASK_DOCUMENT_LABEL}"`, `${WHAT}.mask`);
  }
  const mask = {} as RevelationMask;
  for (const section of MASK_SECTIONS) {
    const tags = new CborFields(fields.any(section), `${WHAT}.${section}`);
    mask[section] = {} as Record<ClaimPart, MaskTag>;
    for (const part of CLAIM_PARTS) {
      const tag = tags.text(part);
      if (!(MASK_TAGS as readonly string[]).includes(tag)) {
        throw new CborError(
          "wrong_value",
          "expected Open, Commit, Encrypted or ZK",
          `${WHAT}.${section}.${part}`,
        );
      }
      mask[section][part] = tag as MaskTag;
    }
    tags.done();
  }
  fields.done();
  checkMask(mask);
  return mask;
}

/** The ref that names `document`: `mask:v0.3:open-fields` for the all-Open mask, else its SHA-256. */
export function maskRefOf(mask: RevelationMask): string {
  if (isOpenFieldsMask(mask)) return DEFAULT_REVELATION_MASK_REF;
  const digest = sha256Hex(encodeMaskDocument(mask));
  return `${MASK_DIGEST_REF_PREFIX}${digest}`;
}

export function isOpenFieldsMask(mask: RevelationMask): boolean {
  return MASK_SECTIONS.every((section) => CLAIM_PARTS.every((part) => mask[section][part] === "Open"));
}

/**
 * The mask `ref` names, given the document that came with it (if any): the all-Open mask for the
 * default label without a document; otherwise the document, whose SHA-256 must be the ref's.
 * Throws CborError `wrong_value` at `revelation_mask_ref` when they do not agree.
 */
export function resolveMask(ref: string, document: Uint8Array | undefined): RevelationMask {
  if (document === undefined) {
    if (ref === DEFAULT_REVELATION_MASK_REF) return OPEN_FIELDS_MASK;
    throw new CborError(
      "wrong_value",
      "names a mask document that did not come with it",
      "revelation_mask_ref",
    );
  }
  const mask = decodeMaskDocument(document);
  if (maskRefOf(mask) !== ref) {
    throw new CborError("wrong_value", "is not the digest of the mask document given", "revelation_mask_ref");
  }
  return mask;
}

function checkMask(mask: RevelationMask): void {
  for (const section of MASK_SECTIONS) {
    for (const part of CLAIM_PARTS) {
      if (!ALLOWED_MASK_TAGS[section][part].includes(mask[section][part])) {
        throw new CborError(
          "wrong_value",
          `v0.3 allows ${ALLOWED_MASK_TAGS[section][part].join(", ")} here`,
          `${WHAT}.${section}.${part}`,
        );
      }
    }
  }
  // The gateway sees the receipt: a payer hidden in the intent must not come back in clear in it.
  if (mask.intent.subject !== "Open" && mask.receipt.subject === "Open") {
    throw new CborError(
      "wrong_value",
      "a subject hidden in the intent must be Commit in the receipt",
      `${WHAT}.receipt.subject`,
    );
  }
}

function allOpen(): Record<ClaimPart, MaskTag> {
  return Object.fromEntries(CLAIM_PARTS.map((part) => [part, "Open"])) as Record<ClaimPart, MaskTag>;
}
