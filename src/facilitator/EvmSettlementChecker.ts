import type { Hex, PublicClient } from "viem";
import { evmExactPayloadSchema, type PaymentPayload, type PaymentRequirements } from "../protocol/schemas.js";
import type { SettlementCheck, SettlementChecker } from "./SettlementChecker.js";

const EIP3009_ABI = [
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
] as const;

/** viem and the parsed ABI, loaded by the first settlement looked up, not by importing the package. */
async function loadViem() {
  const viem = await import("viem");
  return { viem, eip3009Abi: viem.parseAbi(EIP3009_ABI) };
}

let viemLoaded: ReturnType<typeof loadViem> | undefined;

export interface EvmSettlementCheckerOptions {
  /** JSON-RPC URL per CAIP-2 network (`eip155:8453` → `https://…`). */
  rpcUrls: Record<string, string>;
  /** Timeout of each RPC call, in ms. */
  timeoutMs?: number;
  /** How far back to look for the authorization's events, in blocks. */
  lookbackBlocks?: bigint;
  now?: () => number;
}

/**
 * Resolves an unknown EIP-3009 settlement on chain: `authorizationState(from, nonce)` on the token, then
 * the `AuthorizationUsed` / `AuthorizationCanceled` event for that nonce, and the `Transfer` to the
 * payee in the same transaction (a payer could have used the nonce for another authorization).
 */
export class EvmSettlementChecker implements SettlementChecker {
  private readonly clients = new Map<string, PublicClient>();
  private readonly now: () => number;
  private readonly lookbackBlocks: bigint;

  constructor(private readonly options: EvmSettlementCheckerOptions) {
    this.now = options.now ?? Date.now;
    this.lookbackBlocks = options.lookbackBlocks ?? 50_000n;
  }

  covers(network: string): boolean {
    return network.startsWith("eip155:") && this.options.rpcUrls[network] !== undefined;
  }

  async check(payment: PaymentPayload, requirements: PaymentRequirements): Promise<SettlementCheck> {
    const evm = evmExactPayloadSchema.safeParse(payment.payload);
    if (!evm.success) return { state: "pending", reason: "not an EIP-3009 authorization" };
    if (!this.covers(requirements.network))
      return { state: "pending", reason: `no rpcUrl for ${requirements.network}` };
    const { viem, eip3009Abi } = await (viemLoaded ??= loadViem());
    const client = this.clientFor(requirements.network, viem);
    if (!client) return { state: "pending", reason: `no rpcUrl for ${requirements.network}` };
    const { from, nonce, validBefore } = evm.data.authorization;
    const token = requirements.asset as Hex;
    try {
      const used = await client.readContract({
        address: token,
        abi: eip3009Abi,
        functionName: "authorizationState",
        args: [from as Hex, nonce as Hex],
      });
      if (!used) {
        return this.now() >= Number(validBefore) * 1000
          ? { state: "not_settled", reason: "the authorization expired unused" }
          : { state: "pending", reason: "the authorization is not used yet" };
      }
      const latest = await client.getBlockNumber();
      const fromBlock = latest > this.lookbackBlocks ? latest - this.lookbackBlocks : 0n;
      const args = { authorizer: from as Hex, nonce: nonce as Hex };
      const [usedLogs, canceledLogs] = await Promise.all([
        client.getContractEvents({
          address: token,
          abi: eip3009Abi,
          eventName: "AuthorizationUsed",
          args,
          fromBlock,
        }),
        client.getContractEvents({
          address: token,
          abi: eip3009Abi,
          eventName: "AuthorizationCanceled",
          args,
          fromBlock,
        }),
      ]);
      if (canceledLogs.length > 0)
        return { state: "not_settled", reason: "the payer cancelled the authorization" };
      const hash = usedLogs[0]?.transactionHash;
      if (!hash)
        return { state: "pending", reason: "used, but its transaction is not in the blocks searched" };
      const receipt = await client.getTransactionReceipt({ hash });
      const paid = viem
        .parseEventLogs({ abi: eip3009Abi, eventName: "Transfer", logs: receipt.logs })
        .some(
          (log) =>
            log.address.toLowerCase() === token.toLowerCase() &&
            log.args.from.toLowerCase() === from.toLowerCase() &&
            log.args.to.toLowerCase() === requirements.payTo.toLowerCase() &&
            log.args.value >= BigInt(requirements.amount),
        );
      return paid
        ? { state: "settled", transaction: hash }
        : { state: "not_settled", reason: "the nonce was used for another transfer" };
    } catch (error) {
      return { state: "pending", reason: `the RPC failed: ${(error as Error).message.split("\n")[0]}` };
    }
  }

  private clientFor(
    network: string,
    viem: Awaited<typeof viemLoaded & object>["viem"],
  ): PublicClient | undefined {
    const url = this.options.rpcUrls[network];
    if (url === undefined) return undefined;
    let client = this.clients.get(network);
    if (!client) {
      client = viem.createPublicClient({
        transport: viem.http(url, { timeout: this.options.timeoutMs ?? 10_000, retryCount: 1 }),
      });
      this.clients.set(network, client);
    }
    return client;
  }
}
