import type { Logger } from "../common/Logger.js";
import { PREDICATE_REVOKES } from "../protocol/cbor/profile.js";
import { openSignedClaim } from "../protocol/cbor/SignedClaim.js";
import { payerIdOf } from "../protocol/cbor/signatures.js";
import { GatewayError } from "../protocol/errors.js";
import { parseRevocationRequest, type RevocationRequest } from "./parseRevocationRequest.js";
import type { RevokedPayers } from "./RevokedPayers.js";

/** What a facilitator's signed revocation said, once checked. */
export interface RevocationEvidence {
  /** The revoked receipt's digest, `sha256:<hex>`. */
  receipt: string;
  /** The refund, e.g. `1000 USDC` (smallest units). */
  refund: string;
  /** When the facilitator revoked it, ISO 8601. */
  revokedAt: string;
  /** The facilitator key that signed it, as `ed25519:<sha256 hex>`. */
  signer: string;
  /** The refunded payer it names (the claim's subject), as `ed25519:<sha256 hex>`: the payer revoked. */
  payer: string;
}

/** What a revocation answers once the payer is dropped here and (with Redis) shared. */
export interface RevocationReceipt {
  revoked: true;
  /** The payer, lower case. */
  payer: string;
  /** Until when it is denied sign-in, epoch ms. */
  until: number;
  reason?: string;
  /** The checked signed revocation, when the request carried one. */
  evidence?: RevocationEvidence;
}

/**
 * Revoke a payer's recognition from an untrusted {@link RevocationRequest}: validated (`400
 * invalid_revocation`, also for a signed revocation that no `trustedSigners` key signed), applied,
 * logged. Rejects with `revocation_unavailable` when it could not be shared.
 */
export async function revokePayer(
  revokedPayers: RevokedPayers,
  request: RevocationRequest,
  logger: Logger,
  trustedSigners: readonly Uint8Array[] = [],
): Promise<RevocationReceipt> {
  const { payer, reason, revocation } = parseRevocationRequest(request);
  const evidence = revocation === undefined ? undefined : checkSignedRevocation(revocation, trustedSigners);
  // Proof of one payer's refund revokes that payer only: never an address it does not name.
  if (evidence !== undefined && evidence.payer !== payer.toLowerCase()) {
    throw new GatewayError(
      "invalid_revocation",
      `the signed revocation names payer ${evidence.payer}, not ${payer}: it proves nothing about ${payer}`,
      { details: { problems: [`revocation: names payer ${evidence.payer}, not the payer revoked`] } },
    );
  }
  try {
    const revoked = await revokedPayers.revoke(payer, { reason });
    logger.info(
      {
        event: "payer_revoked",
        payer: revoked.payer,
        reason,
        until: new Date(revoked.until).toISOString(),
        evidence,
      },
      "payer's recognition revoked",
    );
    return {
      revoked: true,
      payer: revoked.payer,
      until: revoked.until,
      ...(reason === undefined ? {} : { reason }),
      ...(evidence === undefined ? {} : { evidence }),
    };
  } catch (error) {
    logger.error(
      { event: "payer_revocation_failed", payer: payer.toLowerCase(), reason, err: (error as Error).message },
      "payer's revocation could not be shared",
    );
    throw error;
  }
}

/** A facilitator's signed `revokes` claim, checked against the trusted keys; else `400 invalid_revocation`. */
function checkSignedRevocation(base64: string, trustedSigners: readonly Uint8Array[]): RevocationEvidence {
  if (trustedSigners.length === 0) {
    throw new GatewayError(
      "invalid_revocation",
      "this gateway trusts no facilitator's signed revocations: set revocation.trustedSigners, or revoke without one",
      { details: { problems: ["revocation: no trustedSigners configured"] } },
    );
  }
  const verdict = openSignedClaim(base64, { predicate: PREDICATE_REVOKES, trustedSigners });
  if (!verdict.valid) {
    throw new GatewayError("invalid_revocation", `invalid signed revocation: ${verdict.reason}`, {
      details: { problems: [`revocation: ${verdict.problem}`] },
    });
  }
  const { claim, signer } = verdict;
  const refund = claim.quantity === null ? "" : `${claim.quantity.amount} ${claim.quantity.currency}`;
  return {
    receipt: claim.object,
    refund,
    revokedAt: new Date(claim.time * 1000).toISOString(),
    signer: payerIdOf(signer),
    payer: payerIdOf(claim.subject),
  };
}
