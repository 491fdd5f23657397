/** Names people know EVM chains by, for pages; CAIP-2 ids stay the wire's names. */
const EVM_CHAIN_NAMES: Readonly<Record<string, string>> = {
  "1": "Ethereum",
  "10": "OP Mainnet",
  "137": "Polygon",
  "8453": "Base",
  "42161": "Arbitrum One",
  "43114": "Avalanche C-Chain",
  "84532": "Base Sepolia",
  "11155111": "Sepolia",
  "31337": "Local dev chain (anvil)",
};

/** A CAIP-2 network by name (`"eip155:8453"` → `"Base"`), else `"chain 1234 (eip155:1234)"`, else the id. */
export function networkName(network: string): string {
  const match = /^eip155:(\d+)$/.exec(network);
  if (match === null) return network;
  return EVM_CHAIN_NAMES[match[1] as string] ?? `chain ${match[1]} (${network})`;
}
