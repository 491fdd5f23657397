import { z } from "zod/v4";
import { describeIssues } from "../protocol/describeIssues.js";
import { GatewayError } from "../protocol/errors.js";

/** Longest `revocation` accepted, in base64 characters (an ML-DSA-65 signed claim is about 7 KB). */
export const MAX_SIGNED_REVOCATION_CHARS = 16 * 1024;

/**
 * What revoking a payer takes: the payer, why, and optionally the facilitator's signed revocation of
 * the refunded receipt as proof. An unknown field is refused rather than ignored.
 */
export interface RevocationRequest {
  /**
   * The payer: an EVM address (0x + 40 hex digits, any case), the address recognition knows; or an
   * x402+cbor payer id (`ed25519:<64 hex>`, `ml-dsa-65:<64 hex>`), the payer a signed revocation names.
   */
  payer: string;
  /** Why (e.g. `refund`): logged, at most 200 printable characters. */
  reason?: string | undefined;
  /**
   * Base64 of a facilitator's signed `revokes` claim (x402+cbor v0.3, see `revokeReceipt`): checked
   * against `revocation.trustedSigners`, and its subject must be `payer` (else nothing is revoked).
   */
  revocation?: string | undefined;
}

export const revocationRequestSchema = z.strictObject({
  payer: z
    .string()
    .regex(
      /^(?:0x[0-9a-fA-F]{40}|(?:ed25519|ml-dsa-65):[0-9a-fA-F]{64})$/,
      "expected an EVM address (0x + 40 hex digits) or an x402+cbor payer id (ed25519:<64 hex> or ml-dsa-65:<64 hex>)",
    ),
  reason: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, "expected printable characters only")
    .optional(),
  revocation: z
    .string()
    .min(1)
    .max(MAX_SIGNED_REVOCATION_CHARS)
    .regex(/^[A-Za-z0-9+/_-]+={0,2}$/, "expected base64 of a signed revokes claim")
    .optional(),
});

/** A valid {@link RevocationRequest} from untrusted input, or a `400 invalid_revocation` naming each problem. */
export function parseRevocationRequest(input: unknown): {
  payer: string;
  reason?: string;
  revocation?: string;
} {
  const parsed = revocationRequestSchema.safeParse(input);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error);
    throw new GatewayError("invalid_revocation", `invalid revocation: ${problems.join("; ")}`, {
      details: { problems },
    });
  }
  return parsed.data;
}
