import { CBOR_MEDIA_TYPE } from "../../protocol/cbor/profile.js";
import { GatewayError } from "../../protocol/errors.js";

/** The `415 unsupported_media_type` of a payment format (`application/x402…`) not spoken here. */
export function unsupportedPaymentFormat(mediaType: string): GatewayError {
  return new GatewayError("unsupported_media_type", `payment format ${mediaType} is not supported`, {
    details: { mediaType, supported: ["application/json (base64 JSON headers)", CBOR_MEDIA_TYPE] },
  });
}
