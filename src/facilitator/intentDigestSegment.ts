import { formatIntentDigest } from "../protocol/cbor/facilitatorMessages.js";
import { GatewayError } from "../protocol/errors.js";

/**
 * The path segment of a settlement status read (64 lowercase hex digits), or a `facilitator_error`
 * naming the wrong length: a digest that could not be asked about, never sent.
 */
export function intentDigestSegment(intentDigest: Uint8Array): string {
  try {
    return formatIntentDigest(intentDigest);
  } catch (error) {
    throw new GatewayError("facilitator_error", (error as Error).message, {
      details: { endpoint: "settlements", reason: "rejected" },
      cause: error,
    });
  }
}
