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
import { loadContractArtifact, type DevContract } from "./loadContractArtifact.js";

export interface InstallContractOptions {
  rpcUrl: string;
  chain: Chain;
  publicClient: PublicClient;
  /** Any funded key: deploys the contract whose code is then copied. */
  deployerPrivateKey: Hex;
}

/** Deploys a dev contract on anvil and copies its code to `address` (a canonical address of a public chain). */
export async function installContractAt(
  contract: DevContract,
  address: Hex,
  options: InstallContractOptions,
): Promise<Hex> {
  const { publicClient } = options;
  const artifact = await loadContractArtifact({ contract });
  const wallet = createWalletClient({
    account: privateKeyToAccount(options.deployerPrivateKey),
    chain: options.chain,
    transport: http(options.rpcUrl),
  });
  const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== "success" || !receipt.contractAddress)
    throw new Error(`${contract} deployment failed (tx ${hash})`);
  const code = await publicClient.getCode({ address: getAddress(receipt.contractAddress) });
  if (code === undefined || code === "0x") throw new Error(`${contract} has no code after deployment`);
  const anvil = createTestClient({ mode: "anvil", chain: options.chain, transport: http(options.rpcUrl) });
  await anvil.setCode({ address, bytecode: code });
  return address;
}

/** Where the official `upto` scheme finds Permit2 and x402's upto proxy on every chain. */
export const PERMIT2_ADDRESS: Hex = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
export const UPTO_PROXY_ADDRESS: Hex = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002";

/** Our stand-ins for Permit2 and the upto proxy at their canonical addresses, so `upto` settles on anvil. */
export async function installUptoContracts(options: InstallContractOptions): Promise<void> {
  await installContractAt("TestPermit2", PERMIT2_ADDRESS, options);
  await installContractAt("TestUptoPermit2Proxy", UPTO_PROXY_ADDRESS, options);
}
