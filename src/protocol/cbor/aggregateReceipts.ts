import { CborError } from "./CborError.js";
import {
  aggregateDigest,
  aggregateSignedBytes,
  checkAggregateShape,
  decodeReceiptAggregate,
  totalKey,
  type AggregateTotal,
  type ReceiptAggregate,
} from "./ReceiptAggregate.js";
import { decodeSettlementReceipt, receiptDigest, type SettlementReceipt } from "./SettlementReceipt.js";
import { sameKey } from "./SignedClaim.js";
import { payerIdOf, verifySignature, type SigningKey } from "./signatures.js";
import { verifyReceipt } from "./verifyReceipt.js";

export interface AggregateReceiptsOptions {
  /** Sign the aggregate with this key (e.g. the facilitator's or an auditor's); unsigned by default. */
  signingKey?: SigningKey;
}

/**
 * Sum receipts the facilitator (`facilitatorKey`) signed: per payer × merchant × currency totals and
 * the sorted member digests. A receipt given twice is counted once; two different receipts of the
 * same intent (claim context) are refused, as is any receipt verifyReceipt refuses ({@link CborError}
 * naming `receipts[i]`), and sums past 2^64 − 1 (`out_of_range`).
 */
export function aggregateReceipts(
  receipts: Iterable<SettlementReceipt | Uint8Array>,
  facilitatorKey: Uint8Array,
  options: AggregateReceiptsOptions = {},
): ReceiptAggregate {
  const members = new Map<string, Uint8Array>();
  const intents = new Map<string, string>();
  const totals = new Map<string, AggregateTotal>();
  let index = 0;
  for (const input of receipts) {
    const at = `receipts[${index++}]`;
    const verdict = verifyReceipt(input, facilitatorKey);
    if (!verdict.valid) throw new CborError("wrong_value", verdict.reason, at);
    const receipt = input instanceof Uint8Array ? decodeSettlementReceipt(input) : input;
    const digest = receiptDigest(receipt);
    if (members.has(digest)) continue;
    const intent = Buffer.from(verdict.claim.context).toString("hex");
    if (intents.has(intent)) {
      throw new CborError("wrong_value", "another receipt of the same intent is already counted", at);
    }
    intents.set(intent, digest);
    members.set(digest, new Uint8Array(Buffer.from(digest.slice("sha256:".length), "hex")));
    const row = {
      payer: payerIdOf(verdict.claim.subject),
      merchant: verdict.claim.object,
      currency: verdict.claim.quantity.currency,
    };
    const key = Buffer.from(totalKey(row)).toString("hex");
    const total = totals.get(key) ?? { ...row, amount: 0n, count: 0 };
    totals.set(key, {
      ...total,
      amount: total.amount + verdict.claim.quantity.amount,
      count: total.count + 1,
    });
  }
  const sortedMembers = [...members.values()].sort(Buffer.compare);
  const sortedTotals = [...totals.entries()]
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a, "hex"), Buffer.from(b, "hex")))
    .map(([, total]) => total);
  const aggregate: ReceiptAggregate = {
    members: sortedMembers,
    totals: sortedTotals,
    digest: aggregateDigest(sortedMembers, sortedTotals),
  };
  if (options.signingKey !== undefined) {
    aggregate.signature = options.signingKey.sign(aggregateSignedBytes(sortedMembers, sortedTotals));
    aggregate.signer = options.signingKey.publicKey;
  }
  return aggregate;
}

export type AggregateVerdict =
  { valid: true; aggregate: ReceiptAggregate } | { valid: false; reason: string };

export interface VerifyAggregateOptions {
  /** Require a signature by this key (else a signature, when present, must only be its signer's). */
  signer?: Uint8Array;
}

/**
 * Check an aggregate against its member receipts: its shape, its digest recomputed, its signature
 * (when present, or required by `options.signer`), and members and totals equal to what
 * {@link aggregateReceipts} computes from `receipts` — every receipt the facilitator's, none missing,
 * none extra. Never throws for bad input.
 */
export function verifyAggregate(
  aggregate: ReceiptAggregate | Uint8Array,
  receipts: Iterable<SettlementReceipt | Uint8Array>,
  facilitatorKey: Uint8Array,
  options: VerifyAggregateOptions = {},
): AggregateVerdict {
  let decoded: ReceiptAggregate;
  let expected: ReceiptAggregate;
  try {
    decoded = aggregate instanceof Uint8Array ? decodeReceiptAggregate(aggregate) : aggregate;
    checkAggregateShape(decoded);
  } catch (error) {
    return { valid: false, reason: `malformed aggregate: ${(error as Error).message}` };
  }
  const body = aggregateSignedBytes(decoded.members, decoded.totals);
  if (!sameKey(aggregateDigest(decoded.members, decoded.totals), decoded.digest)) {
    return { valid: false, reason: "the digest does not match the members and totals" };
  }
  if ((decoded.signature === undefined) !== (decoded.signer === undefined)) {
    return { valid: false, reason: "malformed aggregate: signature and signer go together" };
  }
  if (
    options.signer !== undefined &&
    (decoded.signer === undefined || !sameKey(decoded.signer, options.signer))
  ) {
    return { valid: false, reason: "not signed by the expected key" };
  }
  if (decoded.signature !== undefined && !verifySignature(decoded.signer!, body, decoded.signature)) {
    return { valid: false, reason: "the signature does not match the aggregate" };
  }
  try {
    expected = aggregateReceipts(receipts, facilitatorKey);
  } catch (error) {
    return { valid: false, reason: `a member receipt does not verify: ${(error as Error).message}` };
  }
  if (!sameKey(expected.digest, decoded.digest)) {
    return { valid: false, reason: "the members and totals are not those of the receipts given" };
  }
  return { valid: true, aggregate: decoded };
}
