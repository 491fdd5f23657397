/** Defaults of the EvmSigner's EIP-1271 checks (contract wallets asked through the network's `rpcUrls` entry). */
export const EVM_SIGNER_DEFAULTS = {
  /** Timeout of one `isValidSignature` call, in ms. */
  timeoutMs: 5_000,
  /** How long a wallet's valid answer on one (digest, signature) is kept, in ms. */
  cacheTtlMs: 60_000,
  maxEntries: 10_000,
  /** The longest signature a contract wallet is asked about, in bytes (a multi-owner wallet's run longer than 65). */
  maxWalletSignatureBytes: 4_096,
} as const;
