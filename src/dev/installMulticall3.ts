import {
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  type Chain,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { loadContractArtifact } from "./loadContractArtifact.js";

/** Where public chains have Multicall3, and where the `@x402/evm` facilitator looks for it. */
export const MULTICALL3_ADDRESS: Hex = "0xcA11bde05977b3631167028862bE2a173976CA11";

export interface InstallMulticall3Options {
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient;
  /** Any funded key: deploys the contract whose code is then copied. */
  deployerPrivateKey: Hex;
}

/**
 * Gives anvil a `tryAggregate` at Multicall3's canonical address (our `TryAggregate` contract), so
 * the facilitator can say why a payment fails (balance, nonce used, domain) as it does on public chains.
 */
export async function installMulticall3(options: InstallMulticall3Options): Promise<Hex> {
  const { publicClient } = options;
  const artifact = await loadContractArtifact({ contract: "TryAggregate" });
  const wallet = createWalletClient({
    account: privateKeyToAccount(options.deployerPrivateKey),
    chain: options.chain,
    transport: http(options.rpcUrl),
  });
  const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== "success" || !receipt.contractAddress)
    throw new Error(`TryAggregate deployment failed (tx ${hash})`);
  const code = await publicClient.getCode({ address: getAddress(receipt.contractAddress) });
  if (code === undefined || code === "0x") throw new Error("TryAggregate has no code after deployment");
  const anvil = createTestClient({ mode: "anvil", chain: options.chain, transport: http(options.rpcUrl) });
  await anvil.setCode({ address: MULTICALL3_ADDRESS, bytecode: code });
  return MULTICALL3_ADDRESS;
}
