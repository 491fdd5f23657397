const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** The bytes a base58 string (Bitcoin alphabet, as Solana writes keys) stands for, or undefined when it is not base58. */
export function decodeBase58(text: string): Uint8Array | undefined {
  if (text.length === 0 || text.length > 128) return undefined;
  let value = 0n;
  for (const char of text) {
    const digit = BASE58_ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  // Each leading "1" is a leading zero byte.
  for (const char of text) {
    if (char !== "1") break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/** Whether `text` is a Solana address: base58 of exactly 32 bytes (an Ed25519 public key or a program-derived address). */
export function isSolanaAddress(text: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return false;
  return decodeBase58(text)?.length === 32;
}
