import { sha256Hex } from "../common/digests.js";
import { hexOfBytes } from "../common/bytes.js";
import type * as Viem from "viem";
import { isHttpsOrLoopbackUrl } from "../common/isHttpsOrLoopbackUrl.js";
import type { SignerVerdict } from "./SignerBackend.js";
import { SignerUnavailableError } from "./SignerUnavailableError.js";
import { SignerVerdictCache } from "./SignerVerdictCache.js";
import { EVM_SIGNER_DEFAULTS } from "./evmSignerDefaults.js";

/** EIP-1271's answer for a valid signature: `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`. */
export const EIP1271_MAGIC_VALUE = "0x1626ba7e";

const IS_VALID_SIGNATURE_ABI = [
  {
    type: "function",
    name: "isValidSignature",
    stateMutability: "view",
    inputs: [
      { name: "hash", type: "bytes32" },
      { name: "signature", type: "bytes" },
    ],
    outputs: [{ name: "magicValue", type: "bytes4" }],
  },
] as const;

export interface Eip1271WalletsOptions {
  /** The chain's JSON-RPC URL: `https://`, or `http://` on loopback only. */
  rpcUrl: string;
  /** Timeout of one `isValidSignature` call, in ms (default 5000); the call is not retried. */
  timeoutMs?: number;
  /** How long a wallet's valid answer on one (digest, signature) is kept, in ms (default 60000). */
  cacheTtlMs?: number;
  /** Valid answers kept (least recently used dropped first; default 10000). */
  maxEntries?: number;
  /** The fetch the node is called with (default the global one). */
  fetch?: typeof fetch;
}

/**
 * EIP-1271 contract wallets of one EVM chain, asked through its JSON-RPC node: `isValidSignature(digest,
 * signature)` called (`eth_call` at `latest`) on the wallet must answer the magic value 0x1626ba7e. No code
 * at the address, a revert or any other answer is a refusal; a node that cannot answer (down, timeout, an
 * error that is not a revert) is a {@link SignerUnavailableError} (fail closed), whose message never names
 * the node. Valid answers are kept (LRU, TTL), keyed by wallet, digest and the signature's SHA-256.
 */
export class Eip1271Wallets {
  private client: Promise<{ viem: typeof Viem; client: Viem.PublicClient }> | undefined;
  private readonly verdicts: SignerVerdictCache;

  constructor(private readonly options: Eip1271WalletsOptions) {
    if (!isHttpsOrLoopbackUrl(options.rpcUrl)) {
      throw new RangeError("EvmSigner: the rpcUrl must be https:// (plain http only on loopback)");
    }
    this.verdicts = new SignerVerdictCache({
      maxEntries: options.maxEntries ?? EVM_SIGNER_DEFAULTS.maxEntries,
      ttlMs: options.cacheTtlMs ?? EVM_SIGNER_DEFAULTS.cacheTtlMs,
      keepRefusals: false,
    });
  }

  /** `isValidSignature` calls made, and answers served from the cache. */
  get stats(): { readonly calls: number; readonly cached: number } {
    return this.verdicts.stats;
  }

  /** Whether `wallet` says `signature` is its own over `digest` (both `0x` hex). */
  check(wallet: `0x${string}`, digest: `0x${string}`, signature: Uint8Array): Promise<SignerVerdict> {
    if (signature.length === 0 || signature.length > EVM_SIGNER_DEFAULTS.maxWalletSignatureBytes) {
      const reason = `a contract wallet's signature is 1 to ${EVM_SIGNER_DEFAULTS.maxWalletSignatureBytes} bytes, got ${signature.length}`;
      return Promise.resolve({ valid: false, reason });
    }
    const fingerprint = sha256Hex(signature);
    return this.verdicts.answer(`${wallet}|${digest}|${fingerprint}`, () =>
      this.call(wallet, digest, `0x${hexOfBytes(signature)}`),
    );
  }

  private async call(
    wallet: `0x${string}`,
    digest: `0x${string}`,
    signature: `0x${string}`,
  ): Promise<SignerVerdict> {
    const { viem, client } = await this.loadClient();
    let data: `0x${string}` | undefined;
    try {
      ({ data } = await client.call({
        to: wallet,
        data: viem.encodeFunctionData({
          abi: IS_VALID_SIGNATURE_ABI,
          functionName: "isValidSignature",
          args: [digest, signature],
        }),
      }));
    } catch (error) {
      const reverted =
        error instanceof viem.BaseError &&
        error.walk((cause) => cause instanceof viem.ExecutionRevertedError);
      if (reverted) return { valid: false, reason: "the subject's contract reverted isValidSignature" };
      throw new SignerUnavailableError(
        "the EVM node could not check the contract wallet's signature (EIP-1271)",
        { account: wallet, node: new URL(this.options.rpcUrl).origin },
        { cause: error },
      );
    }
    if (data === undefined || data === "0x") {
      return {
        valid: false,
        reason: "the signature is not the subject's key's, and no EIP-1271 contract wallet answers there",
      };
    }
    // bytes4 ABI-encoded: the magic value, left-aligned in one 32-byte word.
    const word = data.toLowerCase();
    if (word.length >= 66 && word.slice(0, 66) === EIP1271_MAGIC_VALUE.padEnd(66, "0"))
      return { valid: true };
    return {
      valid: false,
      reason: `the contract wallet's isValidSignature answered ${word.slice(0, 10)}, not ${EIP1271_MAGIC_VALUE}`,
    };
  }

  private loadClient(): Promise<{ viem: typeof Viem; client: Viem.PublicClient }> {
    this.client ??= import("viem").then((viem) => ({
      viem,
      client: viem.createPublicClient({
        transport: viem.http(this.options.rpcUrl, {
          timeout: this.options.timeoutMs ?? EVM_SIGNER_DEFAULTS.timeoutMs,
          retryCount: 0,
          ...(this.options.fetch && { fetchFn: this.options.fetch }),
        }),
      }),
    }));
    return this.client;
  }
}
