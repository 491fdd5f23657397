import { Base64JsonError, decodeBase64Json } from "../../protocol/base64Json.js";
import { formatPath } from "../../protocol/describeIssues.js";
import { GatewayError } from "../../protocol/errors.js";
import { MAX_JSON_PAYMENT_HEADER_BYTES } from "../../protocol/headers.js";
import {
  EVM_AUTHORIZATION_SCHEMES,
  isEvmNetwork,
  paymentPayloadSchema,
  type PaymentPayload,
} from "../../protocol/schemas.js";
import { parseEvmExactPayload } from "../../protocol/parseEvmExactPayload.js";
import { isPlainPaymentPayload } from "../../protocol/isPlainPaymentPayload.js";

/**
 * Decode and validate a `PAYMENT-SIGNATURE` header (base64 JSON, padded or not, or base64url).
 * Throws `431 header_too_large` or `400 invalid_payment` naming the layer or field that is wrong.
 */
export function decodePaymentHeader(value: string): PaymentPayload {
  if (value.length > MAX_JSON_PAYMENT_HEADER_BYTES) {
    throw new GatewayError(
      "header_too_large",
      `PAYMENT-SIGNATURE is over ${MAX_JSON_PAYMENT_HEADER_BYTES} bytes`,
      {
        details: { header: "PAYMENT-SIGNATURE", limit: MAX_JSON_PAYMENT_HEADER_BYTES },
      },
    );
  }
  let decoded: unknown;
  try {
    decoded = decodeBase64Json(value);
  } catch (error) {
    const stage = error instanceof Base64JsonError ? error.stage : "base64";
    throw new GatewayError(
      "invalid_payment",
      `PAYMENT-SIGNATURE is not base64 JSON: ${(error as Error).message}`,
      {
        details: { stage },
      },
    );
  }
  const payment = isPlainPaymentPayload(decoded) ? decoded : parsePaymentPayload(decoded);
  const { scheme, network } = payment.accepted;
  if (EVM_AUTHORIZATION_SCHEMES.has(scheme) && isEvmNetwork(network)) {
    const evm = parseEvmExactPayload(payment.payload);
    if (!evm.success) throw invalidField(evm.error.issues[0], ["payload"]);
  }
  return payment;
}

/** The schema's reading, for a payment the fast check did not take as it is: stripped, or refused by name. */
function parsePaymentPayload(decoded: unknown): PaymentPayload {
  const parsed = paymentPayloadSchema.safeParse(decoded);
  if (!parsed.success) throw invalidField(parsed.error.issues[0], []);
  return parsed.data;
}

function invalidField(
  issue: { path: ReadonlyArray<PropertyKey>; message: string } | undefined,
  prefix: string[],
): GatewayError {
  const field = formatPath([...prefix, ...(issue?.path ?? [])]);
  return new GatewayError(
    "invalid_payment",
    `PAYMENT-SIGNATURE field ${field}: ${issue?.message ?? "invalid"}`,
    {
      details: { field },
    },
  );
}
