/** A token the gateway can price in: its address, decimals and EIP-712 domain (the requirement's `extra`). */
export interface KnownAsset {
  network: string;
  address: string;
  decimals: number;
  symbol?: string | undefined;
  /** EIP-712 domain name and version, needed by EIP-3009 signers. */
  name?: string | undefined;
  version?: string | undefined;
}

/** Built-in default assets, one per network: what a money string like `"$0.01"` is paid in. */
export const KNOWN_ASSETS: readonly KnownAsset[] = [
  {
    network: "eip155:8453",
    address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    decimals: 6,
    symbol: "USDC",
    name: "USD Coin",
    version: "2",
  },
  {
    network: "eip155:84532",
    address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    decimals: 6,
    symbol: "USDC",
    name: "USDC",
    version: "2",
  },
  // Solana: the official CAIP-2 ids (genesis hash prefixes) and Circle's USDC mints; no EIP-712 domain.
  {
    network: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    decimals: 6,
    symbol: "USDC",
  },
  {
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    address: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU",
    decimals: 6,
    symbol: "USDC",
  },
];

/** Assets by network (the first listed is that network's default) and by lower-cased address. */
export class AssetTable {
  private readonly byNetwork = new Map<string, KnownAsset>();
  private readonly byAddress = new Map<string, KnownAsset>();

  /** `extra` assets come first, so a user's entry overrides the built-in default of its network. */
  constructor(extra: readonly KnownAsset[] = []) {
    for (const asset of [...extra, ...KNOWN_ASSETS]) {
      if (!this.byNetwork.has(asset.network)) this.byNetwork.set(asset.network, asset);
      const key = `${asset.network}|${addressKey(asset.network, asset.address)}`;
      if (!this.byAddress.has(key)) this.byAddress.set(key, asset);
    }
  }

  defaultFor(network: string): KnownAsset | undefined {
    return this.byNetwork.get(network);
  }

  find(network: string, address: string): KnownAsset | undefined {
    return this.byAddress.get(`${network}|${addressKey(network, address)}`);
  }
}

/** EVM addresses compare case-insensitively; base58 ones (Solana) are case-sensitive. */
function addressKey(network: string, address: string): string {
  return network.startsWith("solana:") ? address : address.toLowerCase();
}
