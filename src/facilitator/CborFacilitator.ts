import type {
  CborFacilitatorRequest,
  CborSettleResponse,
  CborVerifyResponse,
} from "../protocol/cbor/facilitatorMessages.js";

/** What a CBOR facilitator knows of one intent's settlement. */
export type CborSettlementStatus = { settled: true; receipt: Uint8Array } | { settled: false };

/**
 * What the paywall needs from a facilitator of `application/x402+cbor` payments. As for JSON, an
 * invalid payment is a normal answer; a facilitator that cannot answer throws a GatewayError
 * (`facilitator_unavailable` or `facilitator_error`).
 */
export interface CborFacilitator {
  verifyCbor(request: CborFacilitatorRequest): Promise<CborVerifyResponse>;
  settleCbor(request: CborFacilitatorRequest): Promise<CborSettleResponse>;
  /**
   * The settlement of the intent whose SHA-256 digest is `intentDigest` (32 bytes), read only and
   * idempotent: `settled: false` means it did not happen. Throws a GatewayError when it cannot answer.
   * Optional: without it a cut /settle stays unknown until the intent's deadline.
   */
  cborSettlementOf?(intentDigest: Uint8Array): Promise<CborSettlementStatus>;
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
