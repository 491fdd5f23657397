import type {
  FacilitatorContext,
  PaymentPayload,
  PaymentRequirements,
  SchemeNetworkFacilitator,
  SettleResponse,
  VerifyResponse,
} from "@x402/core/types";

/**
 * A facilitator scheme named `alias` that settles exactly like `inner`: used to advertise `exact-pq`
 * on EVM, where it is the same EIP-3009 authorization as `exact`. The payload's `accepted` and the
 * requirements are passed down with `scheme` set to the inner scheme's name, since it checks that field.
 */
export function aliasFacilitatorScheme(
  inner: SchemeNetworkFacilitator,
  alias: string,
): SchemeNetworkFacilitator {
  const toInner = (payload: PaymentPayload, requirements: PaymentRequirements) => ({
    payload: { ...payload, accepted: { ...payload.accepted, scheme: inner.scheme } },
    requirements: { ...requirements, scheme: inner.scheme },
  });
  return {
    scheme: alias,
    caipFamily: inner.caipFamily,
    getExtra: (network) => inner.getExtra(network),
    getSigners: (network) => inner.getSigners(network),
    verify(payload, requirements, context?: FacilitatorContext): Promise<VerifyResponse> {
      const down = toInner(payload, requirements);
      return inner.verify(down.payload, down.requirements, context);
    },
    settle(payload, requirements, context?: FacilitatorContext): Promise<SettleResponse> {
      const down = toInner(payload, requirements);
      return inner.settle(down.payload, down.requirements, context);
    },
  };
}
