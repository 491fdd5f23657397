import { parseSvmTransaction, svmTransferOf } from "../protocol/svmTransaction.js";
import type { PaymentPayload, PaymentRequirements } from "../protocol/schemas.js";
import type { SettlementCheck, SettlementChecker } from "./SettlementChecker.js";

export interface SvmSettlementCheckerOptions {
  /** JSON-RPC URL per Solana network (`solana:5eykt4Us…` → `https://…`). */
  rpcUrls: Record<string, string>;
  /** Timeout of each RPC call, in ms (default 5 000). */
  timeoutMs?: number;
  /** How many of the payer's token account's latest transactions to look through (default 100). */
  lookback?: number;
  fetch?: typeof fetch;
}

interface SignatureInfo {
  signature: string;
  err: unknown;
}

/**
 * Resolves an unknown Solana `exact` settlement on chain. The transaction's id is the fee payer's signature,
 * which only the facilitator made, so it is found by its message: among the latest transactions of the
 * payer's token account, the one whose message is this payment's. The blockhash is read first: once it has
 * expired the transaction can no longer land, so not finding it then means it never will.
 */
export class SvmSettlementChecker implements SettlementChecker {
  private readonly fetch: typeof fetch;
  private id = 0;

  constructor(private readonly options: SvmSettlementCheckerOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  covers(network: string): boolean {
    return network.startsWith("solana:") && this.options.rpcUrls[network] !== undefined;
  }

  async check(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettlementCheck> {
    const url = this.options.rpcUrls[requirements.network];
    if (url === undefined || !requirements.network.startsWith("solana:"))
      return { state: "pending", reason: `no rpcUrl for ${requirements.network}` };
    const text = (payment.payload as { transaction?: unknown }).transaction;
    const transaction = typeof text === "string" ? parseSvmTransaction(text) : undefined;
    const transfer = transaction && svmTransferOf(transaction);
    if (!transaction || !transfer) return { state: "pending", reason: "not a Solana transfer transaction" };
    try {
      // Before the search: a blockhash expired now means whatever landed has landed already.
      const valid = await this.call<{ value: boolean }>(url, "isBlockhashValid", [
        transaction.recentBlockhash,
        { commitment: "confirmed" },
      ]);
      const signatures = await this.call<SignatureInfo[]>(url, "getSignaturesForAddress", [
        transfer.source,
        { limit: this.options.lookback ?? 100, commitment: "confirmed" },
      ]);
      for (const { signature, err } of signatures) {
        const landed = await this.call<{ transaction: [string, string] } | null>(url, "getTransaction", [
          signature,
          { encoding: "base64", commitment: "confirmed", maxSupportedTransactionVersion: 0 },
        ]);
        const bytes = landed && parseSvmTransaction(landed.transaction[0])?.message;
        if (!bytes || !sameBytes(bytes, transaction.message)) continue;
        return err === null || err === undefined
          ? { state: "settled", transaction: signature }
          : { state: "not_settled", reason: `the transaction failed on chain: ${JSON.stringify(err)}` };
      }
      return valid.value
        ? { state: "pending", reason: "the transaction has not landed and its blockhash is still valid" }
        : { state: "not_settled", reason: "the blockhash expired and the transaction never landed" };
    } catch (error) {
      return { state: "pending", reason: `the Solana RPC failed: ${(error as Error).message}` };
    }
  }

  private async call<T>(url: string, method: string, params: unknown[]): Promise<T> {
    const response = await this.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++this.id, method, params }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
    });
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`);
    const body = (await response.json()) as { result?: T; error?: { message?: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message ?? "error"}`);
    return body.result as T;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
