import type { SignerId } from "../protocol/cbor/profile.js";
import type { SignerBackendName } from "./SignerBackend.js";

export interface SignerTableRow {
  /** The subject forms of the backend (profile.ts, SIGNER_IDS). */
  signerIds: readonly SignerId[];
  /** What signs, in one line. */
  signs: string;
  /** The seed's phase. */
  phase: string;
  /** Whether this project verifies it; an unbuilt one is refused with `signer_not_built`. */
  built: boolean;
}

/** The seed's signer table: every row, built or not (docs/cbor.md, "Signer backends", is written from it). */
export const SIGNER_TABLE: Record<SignerBackendName, SignerTableRow> = {
  ServiceAuthSigner: {
    signerIds: ["service-auth"],
    signs: "Ed25519 (MVP) or ML-DSA-65 (phase 2) over the exact intent bytes",
    phase: "MVP (ML-DSA-65: phase 2)",
    built: true,
  },
  LayerTwoSigner: {
    signerIds: ["starknet-account", "starknet-key"],
    signs:
      "a Starknet contract account (SNIP-6) or a direct Stark key, over the intent as SNIP-12 typed data",
    phase: "MVP",
    built: true,
  },
  EvmSigner: {
    signerIds: ["evm"],
    signs:
      "an EOA's secp256k1 ECDSA over the intent as EIP-712 typed data, or an EIP-1271 contract wallet (through the network's rpcUrls entry)",
    phase: "phase 4+",
    built: true,
  },
  Ed25519ChainSigner: {
    signerIds: ["ed25519-chain"],
    signs: "an account of another Ed25519 chain",
    phase: "phase 4+",
    built: false,
  },
  UtxoChainSigner: {
    signerIds: ["utxo"],
    signs: "a UTXO-chain key",
    phase: "phase 3+, conditional",
    built: false,
  },
};

/** The backend a subject form belongs to. */
export function backendNameOf(signerId: SignerId): SignerBackendName {
  for (const [name, row] of Object.entries(SIGNER_TABLE)) {
    if (row.signerIds.includes(signerId)) return name as SignerBackendName;
  }
  throw new RangeError(`no backend for signer id ${signerId}`);
}
