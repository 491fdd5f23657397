import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export type NonceCheck =
  { ok: true; expiresAtMs: number } | { ok: false; reason: "malformed" | "forged" | "expired" };

/**
 * Stateless sign-in nonces: 32 hex characters = expiry (8, seconds since the epoch) + random (8) + the
 * first 16 of HMAC-SHA256(secret, expiry.random.domain.resource). Issuing stores nothing, so a flood of
 * 402s costs no memory; instances sharing the secret accept each other's nonces. Only used nonces are
 * stored (by a NonceStore) until they expire, so each works once.
 */
export class SignInNonces {
  private readonly secret: Buffer;

  constructor(secret?: string) {
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret, "utf8");
  }

  mint(domain: string, resource: string, expiresAtMs: number): string {
    const expiry = Math.ceil(expiresAtMs / 1000)
      .toString(16)
      .padStart(8, "0");
    const random = randomBytes(4).toString("hex");
    return `${expiry}${random}${this.mac(expiry, random, domain, resource)}`;
  }

  check(nonce: string, domain: string, resource: string, nowMs: number): NonceCheck {
    if (!/^[0-9a-f]{32}$/.test(nonce)) return { ok: false, reason: "malformed" };
    const expiry = nonce.slice(0, 8);
    const random = nonce.slice(8, 16);
    const expected = Buffer.from(this.mac(expiry, random, domain, resource), "hex");
    if (!timingSafeEqual(expected, Buffer.from(nonce.slice(16), "hex")))
      return { ok: false, reason: "forged" };
    const expiresAtMs = parseInt(expiry, 16) * 1000;
    return expiresAtMs > nowMs ? { ok: true, expiresAtMs } : { ok: false, reason: "expired" };
  }

  private mac(expiry: string, random: string, domain: string, resource: string): string {
    return createHmac("sha256", this.secret)
      .update(`${expiry}.${random}.${domain}.${resource}`)
      .digest("hex")
      .slice(0, 16);
  }
}
