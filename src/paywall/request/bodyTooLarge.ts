import { GatewayError } from "../../protocol/errors.js";

/** `413 payload_too_large`: a request body over `maxBytes`. */
export function bodyTooLarge(maxBytes: number): GatewayError {
  return new GatewayError("payload_too_large", `the request body is over ${maxBytes} bytes`, {
    details: { limit: maxBytes },
  });
}
