/** Default token addresses and amounts used across the staking tests. */
export const STRK = "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d";
export const WBTC = "0x03fe2b97c1fd336e750087d68b9b867997fd64a2661ff3ca5a7c771641e8e7ac";
export const ONE_STRK = 10n ** 18n;
export const ONE_WBTC = 10n ** 8n;
export const FAUCET_STRK = 10_000n * ONE_STRK;

/** Canonical felt text, as the backend answers it. */
export function felt(value: string | bigint): string {
  return "0x" + BigInt(value).toString(16).padStart(64, "0");
}

/** Net STRK reward of `epochs` epochs on `amount` with the default local config (per-segment floor, as the simulator). */
export function expectedStrkReward(amount: bigint, epochs: number): bigint {
  const yearlyMint = 120_000_000n * ONE_STRK;
  const networkStake = 1_000_000_000n * ONE_STRK;
  return (
    (amount * BigInt(epochs) * yearlyMint * 7_500n * 60n * 9_500n) /
    (365n * 86_400n * networkStake * 10_000n * 10_000n)
  );
}

/** Same for a WBTC amount (8 decimals, normalised to 18; BTC share 25 %, network BTC stake 1,500). */
export function expectedWbtcReward(amount: bigint, epochs: number): bigint {
  const yearlyMint = 120_000_000n * ONE_STRK;
  const networkStake = 1_500n * ONE_STRK;
  return (
    (amount * 10n ** 10n * BigInt(epochs) * yearlyMint * 2_500n * 60n * 9_500n) /
    (365n * 86_400n * networkStake * 10_000n * 10_000n)
  );
}
