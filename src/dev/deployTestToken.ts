import { createWalletClient, getAddress, http, type Chain, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { loadContractArtifact } from "./loadContractArtifact.js";
import { testUSDCAbi } from "./testUSDCAbi.js";

export interface DeployTestTokenOptions {
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient;
  /** Deployer and minter. */
  deployerPrivateKey: Hex;
  /** Balances to mint right after deployment, in the token's smallest unit. */
  mint?: { to: Hex; amount: bigint }[];
  log?: (line: string) => void;
}

/** A deployed TestUSDC: what an x402 offer needs to name it (`asset` and `extra`). */
export interface TestToken {
  address: Hex;
  decimals: 6;
  /** EIP-712 domain name (the requirement's `extra.name`). */
  name: "USDC";
  /** EIP-712 domain version (the requirement's `extra.version`). */
  version: "2";
}

/** Deploys TestUSDC (EIP-3009 ERC-20, from the cached artifact) and mints the requested balances. */
export async function deployTestToken(options: DeployTestTokenOptions): Promise<TestToken> {
  const { publicClient, chain } = options;
  const artifact = await loadContractArtifact({ contract: "TestUSDC", log: options.log });
  const account = privateKeyToAccount(options.deployerPrivateKey);
  const wallet = createWalletClient({ account, chain, transport: http(options.rpcUrl) });

  const deployHash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: deployHash, timeout: 30_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`TestUSDC deployment failed (tx ${deployHash})`);
  }
  const address = getAddress(receipt.contractAddress);
  for (const { to, amount } of options.mint ?? []) {
    const hash = await wallet.writeContract({
      address,
      abi: testUSDCAbi,
      functionName: "mint",
      args: [to, amount],
    });
    const minted = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
    if (minted.status !== "success") throw new Error(`minting ${amount} to ${to} failed (tx ${hash})`);
  }
  options.log?.(`TestUSDC deployed at ${address}`);
  return { address, decimals: 6, name: "USDC", version: "2" };
}
