import { equalBytesConstantTime, hmacSha256, randomBytes } from "../common/digests.js";
import { bytesOfHex, hexOfBytes } from "../common/bytes.js";

export type NonceCheck =
  { ok: true; expiresAtMs: number } | { ok: false; reason: "malformed" | "forged" | "expired" };

/**
 * Stateless sign-in nonces: 32 hex characters = expiry (8, seconds since the epoch) + random (8) + the
 * first 16 of HMAC-SHA256(secret, expiry.random.domain.resource). Issuing stores nothing, so a flood of
 * 402s costs no memory; instances sharing the secret accept each other's nonces. Only used nonces are
 * stored (by a NonceStore) until they expire, so each works once.
 */
export class SignInNonces {
  private readonly secret: Uint8Array;

  constructor(secret?: string) {
    this.secret = secret === undefined ? randomBytes(32) : new TextEncoder().encode(secret);
  }

  mint(domain: string, resource: string, expiresAtMs: number): string {
    const expiry = Math.ceil(expiresAtMs / 1000)
      .toString(16)
      .padStart(8, "0");
    const random = hexOfBytes(randomBytes(4));
    return `${expiry}${random}${this.mac(expiry, random, domain, resource)}`;
  }

  check(nonce: string, domain: string, resource: string, nowMs: number): NonceCheck {
    if (!/^[0-9a-f]{32}$/.test(nonce)) return { ok: false, reason: "malformed" };
    const expiry = nonce.slice(0, 8);
    const random = nonce.slice(8, 16);
    // Both 16 hex digits (checked above): 8 bytes each.
    const expected = bytesOfHex(this.mac(expiry, random, domain, resource)) as Uint8Array;
    if (!equalBytesConstantTime(expected, bytesOfHex(nonce.slice(16)) as Uint8Array))
      return { ok: false, reason: "forged" };
    const expiresAtMs = parseInt(expiry, 16) * 1000;
    return expiresAtMs > nowMs ? { ok: true, expiresAtMs } : { ok: false, reason: "expired" };
  }

  private mac(expiry: string, random: string, domain: string, resource: string): string {
    return hexOfBytes(hmacSha256(this.secret, `${expiry}.${random}.${domain}.${resource}`)).slice(0, 16);
  }
}
