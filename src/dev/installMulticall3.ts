import type { Hex } from "viem";
import { installContractAt, type InstallContractOptions } from "./installContractAt.js";

/** Where public chains have Multicall3, and where the `@x402/evm` facilitator looks for it. */
export const MULTICALL3_ADDRESS: Hex = "0xcA11bde05977b3631167028862bE2a173976CA11";

export type InstallMulticall3Options = InstallContractOptions;

/**
 * Gives anvil a `tryAggregate` at Multicall3's canonical address (our `TryAggregate` contract), so
 * the facilitator can say why a payment fails (balance, nonce used, domain) as it does on public chains.
 */
export function installMulticall3(options: InstallMulticall3Options): Promise<Hex> {
  return installContractAt("TryAggregate", MULTICALL3_ADDRESS, options);
}
