import type * as Viem from "viem";
import type { IntentToVerify, SignerBackend, SignerVerdict } from "./SignerBackend.js";
import { evmIntentTypedData } from "./evmIntentTypedData.js";
import { decodeEvmSignature } from "./evmSignatureBytes.js";

export interface EvmSignerOptions {
  /** The EIP-712 domain's chain id: the EVM chain the paywall's `network` (`eip155:<id>`) names. */
  chainId: number;
}

/**
 * The EVM signer: the payer signs the intent as EIP-712 typed data ({@link evmIntentTypedData}) with an
 * EOA key; the signer recovered with viem must be the subject's 20-byte address. viem is loaded on first
 * use (the package root does not load it). EIP-1271 contract wallets are not verified yet: a signature
 * that does not recover to the subject is refused.
 */
export class EvmSigner implements SignerBackend {
  readonly name = "EvmSigner";
  readonly signerIds = ["evm"] as const;
  private viem: Promise<typeof Viem> | undefined;

  constructor(private readonly options: EvmSignerOptions) {
    if (!Number.isSafeInteger(options.chainId) || options.chainId <= 0) {
      throw new RangeError(`EvmSigner: chainId must be a positive integer, got ${options.chainId}`);
    }
  }

  get chainId(): number {
    return this.options.chainId;
  }

  async verify({ claim, signature }: IntentToVerify): Promise<SignerVerdict> {
    let hexSignature: `0x${string}`;
    try {
      hexSignature = decodeEvmSignature(signature);
    } catch (error) {
      return { valid: false, reason: (error as Error).message };
    }
    this.viem ??= import("viem");
    const { recoverTypedDataAddress } = await this.viem;
    const subject = `0x${Buffer.from(claim.subject).toString("hex")}`;
    let recovered: string;
    try {
      recovered = await recoverTypedDataAddress({
        ...evmIntentTypedData(claim, this.options.chainId),
        signature: hexSignature,
      });
    } catch (error) {
      return { valid: false, reason: `no signer recovers from the signature: ${(error as Error).message}` };
    }
    if (recovered.toLowerCase() === subject) return { valid: true };
    return {
      valid: false,
      reason: `the EIP-712 signature (chain ${this.options.chainId}) is not the subject ${subject}'s`,
    };
  }
}
