import { decodeBase64 } from "../protocol/decodeBase64.js";
import { InsecureTransportError } from "./InsecureTransportError.js";
import { insecureTransportProblem, type TransportPolicy } from "./insecureTransportProblem.js";

/** The headers that carry a payer's signature: x402 V2 and V1 payments, and a sign-in-with-x proof. */
const SIGNED_HEADERS = ["payment-signature", "x-payment", "sign-in-with-x"] as const;

/**
 * Wraps `fetchImpl` so that a request carrying a payment or a sign-in is sent only where
 * {@link insecureTransportProblem} allows (else it throws {@link InsecureTransportError} and nothing is
 * sent), and follows no redirect: a 3xx could carry the signature to plain HTTP or to another origin.
 * Requests without a signature pass unchanged.
 */
export function guardSignedFetch(fetchImpl: typeof fetch, policy: TransportPolicy = {}): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const signed = SIGNED_HEADERS.find((name) => headers.has(name));
    if (signed === undefined) return fetchImpl(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const problem = insecureTransportProblem(url, networkOf(headers.get(signed)!), policy);
    if (problem !== undefined) return Promise.reject(new InsecureTransportError(url, problem));
    return fetchImpl(input, { ...init, redirect: "manual" });
  };
}

/**
 * The CAIP-2 network a signed header is for: a JSON payment's `accepted.network` (V2) or `network` (V1),
 * a sign-in's `chainId`; undefined for anything else (a CBOR payment names no network).
 */
function networkOf(header: string): string | undefined {
  try {
    const value = JSON.parse(new TextDecoder().decode(decodeBase64(header))) as {
      accepted?: { network?: unknown };
      network?: unknown;
      chainId?: unknown;
    };
    const network = value.accepted?.network ?? value.network ?? value.chainId;
    return typeof network === "string" ? network : undefined;
  } catch {
    return undefined;
  }
}
