import { REVOCATION_DEFAULTS } from "./revocationSettings.js";

/** Default prefix of the used sign-in nonces, when the ledger names no `keyPrefix` of its own. */
export const NONCE_KEY_PREFIX = "x402:siwx:nonce:";

/**
 * Where recognition keeps its Redis keys beside a Redis ledger: under the ledger's `keyPrefix` when it
 * has one (deployments that share a Redis but not a ledger share no nonces nor revocations either),
 * else at the defaults. An explicit `revocation.keyPrefix` wins for the revocation set.
 */
export function redisKeyPrefixes(
  ledger: { keyPrefix?: string | undefined },
  revocation?: { keyPrefix?: string | undefined },
): { nonces: string; revoked: string } {
  const base = ledger.keyPrefix;
  return {
    nonces: base === undefined ? NONCE_KEY_PREFIX : `${base}siwx:nonce:`,
    revoked:
      revocation?.keyPrefix ?? (base === undefined ? REVOCATION_DEFAULTS.keyPrefix : `${base}revoked:`),
  };
}
