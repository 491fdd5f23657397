/** Defaults of the LayerTwoSigner (Starknet), written once. */
export const LAYER_TWO_SIGNER_DEFAULTS = {
  /** The SNIP-12 domain's chain id. */
  chainId: "SN_MAIN",
  timeoutMs: 5_000,
  /** How long an account's verdict on one (hash, signature) is kept, in ms. */
  cacheTtlMs: 60_000,
  maxEntries: 10_000,
} as const;
