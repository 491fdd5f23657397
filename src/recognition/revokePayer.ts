import type { Logger } from "../common/Logger.js";
import { parseRevocationRequest, type RevocationRequest } from "./parseRevocationRequest.js";
import type { RevokedPayers } from "./RevokedPayers.js";

/** What a revocation answers once the payer is dropped here and (with Redis) shared. */
export interface RevocationReceipt {
  revoked: true;
  /** The payer, lower case. */
  payer: string;
  /** Until when it is denied sign-in, epoch ms. */
  until: number;
  reason?: string;
}

/**
 * Revoke a payer's recognition from an untrusted {@link RevocationRequest}: validated (`400
 * invalid_revocation`), applied, logged. Rejects with `revocation_unavailable` when it could not be shared.
 */
export async function revokePayer(
  revokedPayers: RevokedPayers,
  request: RevocationRequest,
  logger: Logger,
): Promise<RevocationReceipt> {
  const { payer, reason } = parseRevocationRequest(request);
  try {
    const revocation = await revokedPayers.revoke(payer, { reason });
    logger.info(
      {
        event: "payer_revoked",
        payer: revocation.payer,
        reason,
        until: new Date(revocation.until).toISOString(),
      },
      "payer's recognition revoked",
    );
    const receipt: RevocationReceipt = { revoked: true, payer: revocation.payer, until: revocation.until };
    return reason === undefined ? receipt : { ...receipt, reason };
  } catch (error) {
    logger.error(
      { event: "payer_revocation_failed", payer: payer.toLowerCase(), reason, err: (error as Error).message },
      "payer's revocation could not be shared",
    );
    throw error;
  }
}
