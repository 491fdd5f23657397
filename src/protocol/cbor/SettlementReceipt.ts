import { randomBytes } from "../../common/digests.js";
import { CborError } from "./CborError.js";
import { CborFields } from "./CborFields.js";
import type { CborValue } from "./CborValue.js";
import { claimPartValues, decodeClaim, encodeClaim, type Claim } from "./Claim.js";
import { encodeCanonical } from "./encodeCanonical.js";
import {
  RECEIPT_SALT_BYTES,
  commitClaimPart,
  receiptDigestOf,
  receiptSignedBytes,
} from "./receiptCommitments.js";
import type { SigningKey } from "./signatures.js";

/**
 * `PAYMENT-RESPONSE` in this format (our v0.3 profile): `{ claim, salts, signature, signer }` — the
 * canonical bytes of the `was_paid` claim, one 16-byte salt per claim part, and the facilitator's
 * signature over the salted commitments of the six parts (see receiptCommitments.ts), with its key.
 * Signing commitments instead of the claim lets the holder hide parts ({@link restrictReceipt})
 * without the facilitator, and the result still verifies.
 */
export interface SettlementReceipt {
  /** The canonical CBOR of the six-part `was_paid` claim. */
  claim: Uint8Array;
  /** Six 16-byte salts, in claim-part order. */
  salts: Uint8Array[];
  /** The facilitator's signature over `receiptSignedBytes(commitments)`. */
  signature: Uint8Array;
  /** The facilitator's public key (verify against the key it publishes, not this field). */
  signer: Uint8Array;
}

const WHAT = "SettlementReceipt";

export function encodeSettlementReceipt(receipt: SettlementReceipt): Uint8Array {
  return encodeCanonical(
    new Map<string, CborValue>([
      ["claim", receipt.claim],
      ["salts", [...receipt.salts]],
      ["signature", receipt.signature],
      ["signer", receipt.signer],
    ]),
  );
}

export function decodeSettlementReceipt(bytes: Uint8Array): SettlementReceipt {
  const fields = CborFields.decode(bytes, WHAT);
  const receipt = {
    claim: fields.bytes("claim"),
    salts: fields.bytesArray("salts"),
    signature: fields.bytes("signature"),
    signer: fields.bytes("signer"),
  };
  fields.done();
  checkSalts(receipt.salts, `${WHAT}.salts`);
  return receipt;
}

/** Six salts of 16 bytes each, or a {@link CborError} at `at`. */
export function checkSalts(salts: readonly Uint8Array[], at: string): void {
  if (salts.length !== 6 || salts.some((salt) => salt.length !== RECEIPT_SALT_BYTES)) {
    throw new CborError("wrong_value", `expected six ${RECEIPT_SALT_BYTES}-byte salts`, at);
  }
}

/** The six commitments of a receipt: SHA-256(salt_i ‖ part_i), the claim decoded and checked. */
export function receiptCommitments(receipt: SettlementReceipt): { claim: Claim; commitments: Uint8Array[] } {
  checkSalts(receipt.salts, `${WHAT}.salts`);
  const claim = decodeClaim(receipt.claim);
  const parts = claimPartValues(claim);
  return {
    claim,
    commitments: parts.map((part, i) => commitClaimPart(receipt.salts[i] as Uint8Array, part)),
  };
}

/** A receipt's digest, `sha256:<hex>` (the same for its restrictions). Throws CborError when malformed. */
export function receiptDigest(receipt: SettlementReceipt): string {
  return receiptDigestOf(receiptCommitments(receipt).commitments);
}

export interface SignReceiptOptions {
  /** Six 16-byte salts (default: fresh random ones; pass them only to reproduce a receipt). */
  salts?: Uint8Array[];
}

/** Facilitator side: sign `claim` as a receipt — fresh salts, the commitments signed with `key`. */
export function signReceipt(
  key: SigningKey,
  claim: Claim,
  options: SignReceiptOptions = {},
): SettlementReceipt {
  const salts = options.salts ?? Array.from({ length: 6 }, () => randomBytes(RECEIPT_SALT_BYTES));
  const receipt = { claim: encodeClaim(claim), salts, signature: new Uint8Array(0), signer: key.publicKey };
  const { commitments } = receiptCommitments(receipt);
  return { ...receipt, signature: key.sign(receiptSignedBytes(commitments)) };
}
