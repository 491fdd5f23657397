import { z } from "zod/v4";
import { describeIssues } from "../protocol/describeIssues.js";
import { GatewayError } from "../protocol/errors.js";

/**
 * What revoking a payer takes: the payer and why. Keep it an object: a signed revocation claim
 * (a CBOR receipt's revocation) is to be accepted here as a further field once its verifier exists;
 * until then an unknown field is refused rather than ignored.
 */
export interface RevocationRequest {
  /** The payer's EVM address (0x + 40 hex digits, any case). */
  payer: string;
  /** Why (e.g. `refund`): logged, at most 200 printable characters. */
  reason?: string | undefined;
}

export const revocationRequestSchema = z.strictObject({
  payer: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected an EVM address (0x + 40 hex digits)"),
  reason: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, "expected printable characters only")
    .optional(),
});

/** A valid {@link RevocationRequest} from untrusted input, or a `400 invalid_revocation` naming each problem. */
export function parseRevocationRequest(input: unknown): { payer: string; reason?: string } {
  const parsed = revocationRequestSchema.safeParse(input);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error);
    throw new GatewayError("invalid_revocation", `invalid revocation: ${problems.join("; ")}`, {
      details: { problems },
    });
  }
  return parsed.data;
}
