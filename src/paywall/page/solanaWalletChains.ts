/**
 * Solana networks a browser wallet pays on: the CAIP-2 id (the offer's `network`), the Wallet Standard chain
 * the wallet is asked to sign for, the name the page shows, and the public JSON-RPC endpoint the page reads
 * from when `paywall.solanaRpcUrls` names none (the official `@x402/svm` client's defaults).
 */
export const SOLANA_WALLET_CHAINS: Readonly<
  Record<string, { chain: string; name: string; publicRpcUrl: string }>
> = {
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": {
    chain: "solana:mainnet",
    name: "Solana",
    publicRpcUrl: "https://api.mainnet-beta.solana.com",
  },
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": {
    chain: "solana:devnet",
    name: "Solana devnet",
    publicRpcUrl: "https://api.devnet.solana.com",
  },
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": {
    chain: "solana:testnet",
    name: "Solana testnet",
    publicRpcUrl: "https://api.testnet.solana.com",
  },
};
