import { createWalletClient, getAddress, http, type Chain, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { loadContractArtifact } from "./loadContractArtifact.js";

export interface DeployTestSmartWalletOptions {
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient;
  /** Pays for the deployment. */
  deployerPrivateKey: Hex;
  /** The wallet's owner: its ECDSA signatures are the wallet's (EIP-1271). */
  owner: Hex;
}

/**
 * Deploys TestSmartWallet (src/dev/contracts/TestSmartWallet.sol, from the cached artifact): an EIP-1271
 * contract wallet whose `isValidSignature(hash, signature)` answers 0x1626ba7e for `owner`'s signature of
 * `hash`. Returns its checksummed address.
 */
export async function deployTestSmartWallet(options: DeployTestSmartWalletOptions): Promise<Hex> {
  const artifact = await loadContractArtifact({ contract: "TestSmartWallet" });
  const account = privateKeyToAccount(options.deployerPrivateKey);
  const wallet = createWalletClient({ account, chain: options.chain, transport: http(options.rpcUrl) });
  const hash = await wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [options.owner],
  });
  const receipt = await options.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`TestSmartWallet deployment failed (tx ${hash})`);
  }
  return getAddress(receipt.contractAddress);
}
