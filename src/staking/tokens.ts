/** A token with a delegation pool at the validator. */
export interface TokenInfo {
  symbol: string;
  address: bigint;
  decimals: number;
  /** `strk` for the STRK pool, `btc` for the BTC wrappers (they share the BTC share of the mint). */
  kind: "strk" | "btc";
}

/** Starknet mainnet token addresses used by default. */
export const DEFAULT_TOKENS: ReadonlyArray<{ symbol: string; address: string; decimals: number }> = [
  {
    symbol: "STRK",
    address: "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d",
    decimals: 18,
  },
  {
    symbol: "WBTC",
    address: "0x03fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac",
    decimals: 8,
  },
];
