import { createHash } from "node:crypto";
import { CborError } from "./CborError.js";
import { CborFields, asUint } from "./CborFields.js";
import type { CborValue } from "./CborValue.js";
import { encodeCanonical } from "./encodeCanonical.js";
import { isCurrency, type Currency } from "./profile.js";
import { RECEIPT_COMMITMENT_BYTES } from "./receiptCommitments.js";

/** The text that opens the array an aggregate's digest and signature cover (v0.3). */
export const AGGREGATE_DOMAIN = "x402+cbor/v0.3/receipt-aggregate";

/** What one payer paid one merchant in one currency, over the aggregate's members. */
export interface AggregateTotal {
  /** The payer's id, `payerIdOf(subject)` (`ed25519:<hex>` / `ml-dsa-65:<hex>`). */
  payer: string;
  merchant: string;
  currency: Currency;
  /** Sum of the members' amounts, in the currency's smallest unit. */
  amount: bigint;
  /** How many members the sum covers. */
  count: number;
}

/**
 * A verifiable sum of receipts (v0.3): `{ members, totals, digest, signature?, signer? }`.
 * `members`: the member receipts' digests (32 bytes each, the SHA-256 behind `receiptDigest`),
 * strictly ascending — so none twice. `totals`: one row `[payer, merchant, currency, amount, count]`
 * per payer × merchant × currency, strictly ascending by the canonical CBOR of its first three
 * fields. `digest`: SHA-256 of the canonical CBOR of `[AGGREGATE_DOMAIN, members, totals]`.
 * Optionally signed by whoever built it (the facilitator, an auditor) over those same bytes.
 */
export interface ReceiptAggregate {
  members: Uint8Array[];
  totals: AggregateTotal[];
  digest: Uint8Array;
  signature?: Uint8Array;
  signer?: Uint8Array;
}

const WHAT = "ReceiptAggregate";

/** The bytes an aggregate's digest (and signature) cover. */
export function aggregateSignedBytes(
  members: readonly Uint8Array[],
  totals: readonly AggregateTotal[],
): Uint8Array {
  return encodeCanonical([AGGREGATE_DOMAIN, [...members], totals.map(totalRow)]);
}

export function aggregateDigest(
  members: readonly Uint8Array[],
  totals: readonly AggregateTotal[],
): Uint8Array {
  return new Uint8Array(createHash("sha256").update(aggregateSignedBytes(members, totals)).digest());
}

/** The order of total rows: by the canonical CBOR of `[payer, merchant, currency]`. */
export function totalKey(total: Pick<AggregateTotal, "payer" | "merchant" | "currency">): Uint8Array {
  return encodeCanonical([total.payer, total.merchant, total.currency]);
}

export function encodeReceiptAggregate(aggregate: ReceiptAggregate): Uint8Array {
  const map = new Map<string, CborValue>([
    ["members", [...aggregate.members]],
    ["totals", aggregate.totals.map(totalRow)],
    ["digest", aggregate.digest],
  ]);
  if (aggregate.signature !== undefined) map.set("signature", aggregate.signature);
  if (aggregate.signer !== undefined) map.set("signer", aggregate.signer);
  return encodeCanonical(map);
}

/**
 * Decode an aggregate and check its shape: 32-byte members strictly ascending, well-formed total
 * rows strictly ascending, a 32-byte digest, `signature` and `signer` both or neither. Whether the
 * digest, the signature and the sums hold is {@link verifyAggregate}'s job.
 */
export function decodeReceiptAggregate(bytes: Uint8Array): ReceiptAggregate {
  const fields = CborFields.decode(bytes, WHAT);
  const members = fields.bytesArray("members");
  const rows = fields.any("totals");
  const digest = fields.bytes("digest");
  const signature = fields.optionalBytes("signature");
  const signer = fields.optionalBytes("signer");
  fields.done();
  if (!Array.isArray(rows)) throw new CborError("wrong_type", "expected an array of rows", `${WHAT}.totals`);
  const aggregate: ReceiptAggregate = { members, totals: rows.map((row, i) => readTotal(row, i)), digest };
  if ((signature === undefined) !== (signer === undefined)) {
    throw new CborError("missing_key", "signature and signer go together", WHAT);
  }
  if (signature !== undefined && signer !== undefined) Object.assign(aggregate, { signature, signer });
  checkAggregateShape(aggregate);
  return aggregate;
}

/** Throws {@link CborError} unless members and totals are strictly ascending and the digest 32 bytes. */
export function checkAggregateShape(aggregate: ReceiptAggregate): void {
  aggregate.members.forEach((member, i) => {
    if (member.length !== RECEIPT_COMMITMENT_BYTES) {
      throw new CborError("wrong_value", "expected a 32-byte receipt digest", `${WHAT}.members[${i}]`);
    }
    if (i > 0 && Buffer.compare(aggregate.members[i - 1]!, member) >= 0) {
      throw new CborError(
        "wrong_value",
        "members must be strictly ascending (no duplicates)",
        `${WHAT}.members[${i}]`,
      );
    }
  });
  aggregate.totals.forEach((total, i) => {
    if (i > 0 && Buffer.compare(totalKey(aggregate.totals[i - 1]!), totalKey(total)) >= 0) {
      throw new CborError(
        "wrong_value",
        "total rows must be strictly ascending (no duplicates)",
        `${WHAT}.totals[${i}]`,
      );
    }
  });
  if (aggregate.digest.length !== 32)
    throw new CborError("wrong_value", "expected 32 bytes (SHA-256)", `${WHAT}.digest`);
}

function totalRow(total: AggregateTotal): CborValue {
  return [total.payer, total.merchant, total.currency, total.amount, total.count];
}

function readTotal(row: CborValue, index: number): AggregateTotal {
  const at = `${WHAT}.totals[${index}]`;
  if (!Array.isArray(row) || row.length !== 5) {
    throw new CborError("wrong_type", "expected [payer, merchant, currency, amount, count]", at);
  }
  const [payer, merchant, currency, amount, count] = row as CborValue[];
  const units = asUint(amount as CborValue);
  const members = asUint(count as CborValue);
  if (typeof payer !== "string" || typeof merchant !== "string" || !isCurrency(currency)) {
    throw new CborError("wrong_type", "expected text payer, text merchant, USDC|STRK|strkBTC", at);
  }
  if (
    units === undefined ||
    members === undefined ||
    members === 0n ||
    members > BigInt(Number.MAX_SAFE_INTEGER)
  ) {
    throw new CborError("wrong_type", "expected a uint amount and a count ≥ 1", at);
  }
  return { payer, merchant, currency, amount: units, count: Number(members) };
}
