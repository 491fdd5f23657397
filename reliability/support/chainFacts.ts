import { parseAbiItem, type Hex } from "viem";
import type { LocalStack } from "../../src/dev/startLocalStack.js";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/** What the chain says about payments to the stack's payee: a starting point, and what moved since. */
export interface ChainWatch {
  /** TestUSDC transfers to the payee since the watch began, and their total. */
  transfersToPayee(): Promise<{ count: number; total: bigint }>;
}

export async function watchPayee(stack: LocalStack): Promise<ChainWatch> {
  const fromBlock = (await stack.publicClient.getBlockNumber({ cacheTime: 0 })) + 1n;
  const payee: Hex = stack.accounts.payee.address;
  return {
    async transfersToPayee() {
      // anvil refuses a range that starts past the chain's head.
      if ((await stack.publicClient.getBlockNumber({ cacheTime: 0 })) < fromBlock)
        return { count: 0, total: 0n };
      const logs = await stack.publicClient.getLogs({
        address: stack.token.address,
        event: TRANSFER,
        args: { to: payee },
        fromBlock,
        toBlock: "latest",
      });
      return { count: logs.length, total: logs.reduce((sum, log) => sum + (log.args.value ?? 0n), 0n) };
    },
  };
}
