import { createHash } from "node:crypto";
import {
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  type Address,
  type KeyPairSigner,
} from "@solana/kit";

/** Roles of the local Solana engine's accounts, fixed so printed addresses stay the same from run to run. */
export type SolanaDevRole = "feePayer" | "payer" | "payee" | "mintAuthority";

/** One of the local engine's deterministic dev accounts: a public test key, known to everyone. */
export interface SolanaDevAccount {
  address: Address;
  signer: KeyPairSigner;
  /** The 64-byte secret in the Solana CLI's keypair-file layout (32-byte seed, then the public key). */
  keypairBytes: Uint8Array;
}

/** The 32-byte Ed25519 seed of `role`: SHA-256 of a public phrase. Never hold real funds with it. */
export function solanaDevSeed(role: SolanaDevRole): Uint8Array {
  return new Uint8Array(
    createHash("sha256").update(`x402-gateway local solana dev account: ${role}`).digest(),
  );
}

/** The local engine's dev account for `role`. */
export async function solanaDevAccount(role: SolanaDevRole): Promise<SolanaDevAccount> {
  const seed = solanaDevSeed(role);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const keypairBytes = new Uint8Array(64);
  keypairBytes.set(seed, 0);
  keypairBytes.set(getAddressEncoder().encode(signer.address), 32);
  return { address: signer.address, signer, keypairBytes };
}
