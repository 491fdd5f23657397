import { isAddressEqual, isAddress } from "viem";
import { z } from "zod/v4";
import { decodeBase58 } from "../protocol/base58.js";

/** A server's PAYMENT-RESPONSE, read strictly. */
export type Receipt =
  | { kind: "none" }
  | { kind: "invalid"; problem: string }
  | { kind: "settled"; transaction: string }
  | { kind: "refused"; reason: string };

/** Longest PAYMENT-RESPONSE read, in characters (a settle response is a few hundred). */
const MAX_HEADER_CHARS = 8192;

const text = z.string().max(500);

const receiptSchema = z.object({
  success: z.boolean(),
  transaction: z.string().max(200),
  network: z.string().max(64),
  payer: z.string().max(44).optional(),
  errorReason: text.optional(),
  errorMessage: text.optional(),
});

/**
 * The settlement the server reports in PAYMENT-RESPONSE (the only receipt header of x402 V2), checked
 * against the payment that was sent: a success names a transaction on the paid network (an EVM transaction
 * hash, or on Solana a base58 signature of 64 bytes), paid by this payer. Anything else is `invalid`, never trusted and never copied into the result.
 */
export function readReceipt(response: Response, expected: { network: string; payer: string }): Receipt {
  const header = response.headers.get("payment-response");
  if (header === null) return { kind: "none" };
  if (header.length > MAX_HEADER_CHARS)
    return { kind: "invalid", problem: `longer than ${MAX_HEADER_CHARS} characters` };
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
  } catch {
    return { kind: "invalid", problem: "not base64 JSON" };
  }
  const parsed = receiptSchema.safeParse(decoded);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { kind: "invalid", problem: `${issue.path.join(".") || "the receipt"} has the wrong type` };
  }
  const receipt = parsed.data;
  if (!receipt.success) {
    const reason = [receipt.errorReason, receipt.errorMessage].filter(Boolean).join(": ");
    return { kind: "refused", reason: reason || "no reason given" };
  }
  if (receipt.network !== expected.network)
    return { kind: "invalid", problem: `network ${receipt.network} is not the paid ${expected.network}` };
  if (expected.network.startsWith("solana:")) {
    if (
      !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(receipt.transaction) ||
      decodeBase58(receipt.transaction)?.length !== 64
    )
      return { kind: "invalid", problem: "transaction is not a Solana transaction signature" };
    if (receipt.payer !== undefined && receipt.payer !== expected.payer)
      return { kind: "invalid", problem: "payer is not this payer" };
    return { kind: "settled", transaction: receipt.transaction };
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(receipt.transaction))
    return { kind: "invalid", problem: "transaction is not an EVM transaction hash" };
  if (
    receipt.payer !== undefined &&
    !(
      isAddress(receipt.payer, { strict: false }) &&
      isAddress(expected.payer, { strict: false }) &&
      isAddressEqual(receipt.payer, expected.payer)
    )
  )
    return { kind: "invalid", problem: "payer is not this payer" };
  return { kind: "settled", transaction: receipt.transaction };
}
