import { CborError } from "../CborError.js";
import { MAX_CBOR_RECORD_ITEMS, type CborValue } from "../CborValue.js";
import {
  CLAIM_PARTS,
  decodeQuantifiedClaim,
  readClaimPart,
  readSubject,
  type ClaimPart,
  type QuantifiedClaim,
} from "../Claim.js";
import { decodeCanonical } from "../decodeCanonical.js";
import { ALLOWED_MASK_TAGS, type MaskTag } from "./RevelationMask.js";
import { MASK_HPKE_ENC_BYTES, MASK_HPKE_TAG_BYTES } from "./maskHpke.js";

/** A hidden intent part as it sits in the `payment_intent` array: a one-key map naming its form. */
export type HiddenIntentPart =
  | { tag: "Commit"; commitment: Uint8Array }
  | { tag: "Encrypted"; sealed: Uint8Array }
  | { tag: "ZK"; proof: Uint8Array };

/** The wire key of each hiding form: `{ commit: bstr(32) }`, `{ hpke: bstr }`, `{ zk: bstr(32) }`. */
export const HIDDEN_PART_KEYS = { Commit: "commit", Encrypted: "hpke", ZK: "zk" } as const;

/** An intent with some parts possibly hidden: what anyone but the facilitator can read of it. */
export type IntentView = Omit<QuantifiedClaim, "subject" | "signer" | "time"> &
  Partial<Pick<QuantifiedClaim, "subject" | "signer" | "time">>;

export interface WireIntent {
  /** The parts in clear (a hidden subject or time is absent). */
  view: IntentView;
  /** The hidden parts, by name (empty for an all-Open intent). */
  hidden: Partial<Record<ClaimPart, HiddenIntentPart>>;
}

const WHAT = "claim";

/**
 * Read `payment_intent` bytes whatever mask they answer: an intent with every part in clear is the
 * six-part claim (decodeQuantifiedClaim); a hidden part is a one-key map (see HIDDEN_PART_KEYS), and
 * only parts that some v0.3 mask may hide can be hidden. Which parts must be hidden is the mask's
 * to say (checkIntentForm). Throws CborError.
 */
export function decodeWireIntent(bytes: Uint8Array): WireIntent {
  const value = decodeCanonical(bytes, { expect: "array", maxItems: MAX_CBOR_RECORD_ITEMS, what: WHAT });
  if (!value.some((part) => part instanceof Map)) return { view: decodeQuantifiedClaim(bytes), hidden: {} };
  if (value.length !== 6) throw new CborError("wrong_type", "expected an array of six parts", WHAT);
  const hidden: WireIntent["hidden"] = {};
  const view: Record<string, unknown> = {};
  CLAIM_PARTS.forEach((part, index) => {
    const item = value[index] as CborValue;
    if (item instanceof Map) {
      hidden[part] = readHiddenPart(part, item);
      return;
    }
    view[part] = readClaimPart(part, item);
    if (part === "subject") {
      const { signer } = readSubject(item);
      if (signer !== undefined) view.signer = signer;
    }
  });
  if (view.quantity === null)
    throw new CborError("wrong_type", "expected [currency, amount]", `${WHAT}.quantity`);
  return { view: view as unknown as IntentView, hidden };
}

function readHiddenPart(part: ClaimPart, item: Map<string, CborValue>): HiddenIntentPart {
  const at = `${WHAT}.${part}`;
  const entries = [...item.entries()];
  const [key, bytes] = entries[0] ?? [];
  if (entries.length !== 1 || !(bytes instanceof Uint8Array)) {
    throw new CborError("wrong_type", "a hidden part is a one-key map { commit | hpke | zk: bstr }", at);
  }
  const tag = (Object.keys(HIDDEN_PART_KEYS) as MaskTag[]).find(
    (name) => HIDDEN_PART_KEYS[name as keyof typeof HIDDEN_PART_KEYS] === key,
  ) as keyof typeof HIDDEN_PART_KEYS | undefined;
  if (tag === undefined) throw new CborError("unknown_key", `unknown hiding form ${JSON.stringify(key)}`, at);
  if (!ALLOWED_MASK_TAGS.intent[part].includes(tag)) {
    throw new CborError("wrong_value", `v0.3 never hides the intent's ${part} as ${tag}`, at);
  }
  if (tag === "Encrypted") {
    if (bytes.length < MASK_HPKE_ENC_BYTES + MASK_HPKE_TAG_BYTES) {
      throw new CborError("wrong_value", "too short for HPKE enc and tag", at);
    }
    return { tag, sealed: bytes };
  }
  if (bytes.length !== 32) throw new CborError("wrong_value", "expected 32 bytes", at);
  return tag === "Commit" ? { tag, commitment: bytes } : { tag, proof: bytes };
}
