import type {
  CborFacilitatorRequest,
  CborSettleResponse,
  CborVerifyResponse,
} from "../protocol/cbor/facilitatorMessages.js";

/**
 * What the paywall needs from a facilitator of `application/x402+cbor` payments. As for JSON, an
 * invalid payment is a normal answer; a facilitator that cannot answer throws a GatewayError
 * (`facilitator_unavailable` or `facilitator_error`).
 */
export interface CborFacilitator {
  verifyCbor(request: CborFacilitatorRequest): Promise<CborVerifyResponse>;
  settleCbor(request: CborFacilitatorRequest): Promise<CborSettleResponse>;
}

export function isCborFacilitator(value: unknown): value is CborFacilitator {
  const candidate = value as Partial<CborFacilitator> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.verifyCbor === "function" &&
    typeof candidate.settleCbor === "function"
  );
}
