/**
 * Networks (EVM and Solana) whose tokens have no market value, so paying on them needs no consent. Every other
 * network (Ethereum eip155:1, Base eip155:8453, OP eip155:10, Arbitrum eip155:42161, Polygon
 * eip155:137, Solana mainnet, and any chain not listed here) counts as mainnet: an unknown chain is treated as real
 * money rather than as a test network.
 */
export const TEST_NETWORKS: readonly string[] = [
  "eip155:31337", // anvil / hardhat local chain
  "eip155:1337", // ganache / geth dev chain
  "eip155:11155111", // Ethereum Sepolia
  "eip155:17000", // Ethereum Holesky
  "eip155:560048", // Ethereum Hoodi
  "eip155:84532", // Base Sepolia
  "eip155:11155420", // OP Sepolia
  "eip155:421614", // Arbitrum Sepolia
  "eip155:80002", // Polygon Amoy
  "eip155:43113", // Avalanche Fuji
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", // Solana devnet (and the LOCAL Solana engine)
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z", // Solana testnet
];

/** Ethereum mainnet, where the payer only pays with assets named in `PAY_MCP_EVM_ASSETS`. */
export const ETHEREUM_MAINNET = "eip155:1";

/** Whether `network` (a CAIP-2 id) is a known test network; anything else needs mainnet consent. */
export function isTestNetwork(network: string): boolean {
  return TEST_NETWORKS.includes(network);
}
