import type { SchemeNetworkClient } from "@x402/core/types";

/**
 * A client scheme named `alias` that signs exactly like `inner` (e.g. `exact-pq` on EVM: the same
 * EIP-3009 authorization as `exact`). The x402 client records the offer it picked, alias included,
 * as the payload's `accepted`.
 */
export function aliasClientScheme(inner: SchemeNetworkClient, alias: string): SchemeNetworkClient {
  return {
    scheme: alias,
    ...(inner.findDefaultAsset === undefined ? {} : { findDefaultAsset: inner.findDefaultAsset.bind(inner) }),
    createPaymentPayload: (x402Version, requirements, context) =>
      inner.createPaymentPayload(x402Version, { ...requirements, scheme: inner.scheme }, context),
  };
}
