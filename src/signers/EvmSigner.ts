import type * as Viem from "viem";
import { Eip1271Wallets, type Eip1271WalletsOptions } from "./Eip1271Wallets.js";
import type { IntentToVerify, SignerBackend, SignerVerdict } from "./SignerBackend.js";
import { evmIntentTypedData } from "./evmIntentTypedData.js";
import { decodeEvmSignature } from "./evmSignatureBytes.js";
import { hexOfBytes } from "../common/bytes.js";

export interface EvmSignerOptions extends Partial<Eip1271WalletsOptions> {
  /** The EIP-712 domain's chain id: the EVM chain the paywall's `network` (`eip155:<id>`) names. */
  chainId: number;
  /**
   * That chain's JSON-RPC URL (the paywall's `rpcUrls` entry for its `network`): EIP-1271 contract wallets
   * are asked through it. Without it only EOAs pay; any other intent is refused `signer_rpc_not_configured`.
   */
  rpcUrl?: string | undefined;
}

/**
 * The EVM signer: the payer signs the intent as EIP-712 typed data ({@link evmIntentTypedData}); its digest
 * must be the subject's. An EOA: the signer recovered with viem (offline) is the subject's 20-byte address.
 * Otherwise the subject may be an EIP-1271 contract wallet: with the chain's `rpcUrl`, the wallet's
 * `isValidSignature(digest, signature)` is asked ({@link Eip1271Wallets}: fail closed, valid answers
 * cached). viem is loaded on first use (the package root does not load it).
 */
export class EvmSigner implements SignerBackend {
  readonly name = "EvmSigner";
  readonly signerIds = ["evm"] as const;
  /** The contract wallets of the chain, when its `rpcUrl` is configured. */
  readonly wallets: Eip1271Wallets | undefined;
  private viem: Promise<typeof Viem> | undefined;

  constructor(private readonly options: EvmSignerOptions) {
    if (!Number.isSafeInteger(options.chainId) || options.chainId <= 0) {
      throw new RangeError(`EvmSigner: chainId must be a positive integer, got ${options.chainId}`);
    }
    const { rpcUrl } = options;
    this.wallets = rpcUrl === undefined ? undefined : new Eip1271Wallets({ ...options, rpcUrl });
  }

  get chainId(): number {
    return this.options.chainId;
  }

  async verify({ claim, signature }: IntentToVerify): Promise<SignerVerdict> {
    this.viem ??= import("viem");
    const { hashTypedData, recoverAddress } = await this.viem;
    const subject: `0x${string}` = `0x${hexOfBytes(claim.subject)}`;
    let digest: `0x${string}`;
    try {
      digest = hashTypedData(evmIntentTypedData(claim, this.options.chainId));
    } catch (error) {
      return { valid: false, reason: `the intent is not EIP-712 typed data: ${(error as Error).message}` };
    }
    let notEoa: string;
    try {
      const recovered = await recoverAddress({ hash: digest, signature: decodeEvmSignature(signature) });
      if (recovered.toLowerCase() === subject) return { valid: true };
      notEoa = `the EIP-712 signature (chain ${this.options.chainId}) is not the subject ${subject}'s key's`;
    } catch (error) {
      notEoa = `not an EOA signature: ${(error as Error).message}`;
    }
    if (this.wallets === undefined) {
      return {
        valid: false,
        code: "signer_rpc_not_configured",
        reason: `${notEoa}; an EIP-1271 contract wallet cannot be asked: no rpcUrls entry for eip155:${this.options.chainId}`,
      };
    }
    return this.wallets.check(subject, digest, signature);
  }
}
