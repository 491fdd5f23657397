import { utf8ByteLength } from "../common/bytes.js";
import { z } from "zod/v4";
import { Base64JsonError, decodeBase64Json } from "../protocol/base64Json.js";
import { describeIssues } from "../protocol/describeIssues.js";
import { GatewayError } from "../protocol/errors.js";
import { MAX_JSON_PAYMENT_HEADER_BYTES } from "../protocol/headers.js";

/** One line of text: the signed message is line-based, so no field may carry a line break. */
const line = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\r\n]*$/, "must not contain line breaks");
const dateTime = z.iso.datetime({ offset: true, error: "expected an RFC 3339 date-time" });

/**
 * The `SIGN-IN-WITH-X` payload (docs/recognition.md, "The flow"): the offer's `info` echoed, plus the
 * signer's part.
 */
export const signInPayloadSchema = z.object({
  domain: line(255).min(1),
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte hex address"),
  statement: line(1024).optional(),
  uri: line(2048).min(1),
  version: z.string(),
  chainId: z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, "expected a CAIP-2 chain id"),
  type: z.string(),
  nonce: z.string().regex(/^[A-Za-z0-9]{8,128}$/, "expected an alphanumeric nonce"),
  issuedAt: dateTime,
  expirationTime: dateTime.optional(),
  notBefore: dateTime.optional(),
  requestId: line(256).optional(),
  resources: z.array(line(2048)).max(32).optional(),
  signatureScheme: z.string().optional(),
  signature: z.string().regex(/^0x([0-9a-fA-F]{2})+$/, "expected a 0x-prefixed hex signature"),
});
export type SignInPayload = z.infer<typeof signInPayloadSchema>;

/**
 * Decode a `SIGN-IN-WITH-X` header value (base64 or base64url JSON) into its payload.
 * Throws `400 invalid_sign_in` naming what was wrong: the encoding, or the fields.
 */
export function parseSignInHeader(header: string): SignInPayload {
  if (utf8ByteLength(header) > MAX_JSON_PAYMENT_HEADER_BYTES) {
    throw new GatewayError(
      "invalid_sign_in",
      `SIGN-IN-WITH-X is larger than ${MAX_JSON_PAYMENT_HEADER_BYTES} bytes`,
    );
  }
  let decoded: unknown;
  try {
    decoded = decodeBase64Json(header);
  } catch (cause) {
    const stage = cause instanceof Base64JsonError ? cause.stage : "base64";
    throw new GatewayError("invalid_sign_in", `SIGN-IN-WITH-X is not base64 JSON (${stage})`, {
      details: { stage },
      cause,
    });
  }
  const parsed = signInPayloadSchema.safeParse(decoded);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    throw new GatewayError("invalid_sign_in", `SIGN-IN-WITH-X has a wrong shape: ${issues.join("; ")}`, {
      details: { issues },
    });
  }
  return parsed.data;
}
