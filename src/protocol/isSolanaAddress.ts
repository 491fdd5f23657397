import { decodeBase58 } from "./base58.js";

/** Whether `text` is a Solana address: base58 of exactly 32 bytes (an Ed25519 public key or a program-derived address). */
export function isSolanaAddress(text: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return false;
  return decodeBase58(text)?.length === 32;
}
