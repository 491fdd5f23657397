import type { Hex } from "viem";
import { checksumAddress, isEvmAddress } from "../protocol/checksumAddress.js";
import { GatewayError } from "../protocol/errors.js";
import { buildSiweMessage } from "./buildSiweMessage.js";
import type { NonceStore } from "./NonceStore.js";
import type { SignInNonces } from "./SignInNonces.js";
import type { SignInPayload } from "./parseSignInHeader.js";
import { RecognitionError } from "./RecognitionError.js";
import type { SignInContext } from "./SignInGate.js";

/** Checks a signature the way viem's `publicClient.verifyMessage` does (EOA, EIP-1271, EIP-6492). */
export interface MessageVerifier {
  verifyMessage(args: { address: Hex; message: string; signature: Hex }): Promise<boolean>;
}

export interface VerifySignInOptions {
  context: SignInContext;
  /** Checks that a nonce was issued here, for this domain and resource, and is unexpired. */
  nonces: SignInNonces;
  /** Where used nonces are remembered. */
  nonceStore: NonceStore;
  /** How long after `issuedAt` a sign-in is accepted, in ms. */
  signInTtlMs: number;
  /** Clock skew tolerated on `issuedAt` and `notBefore`, in ms. */
  clockSkewMs: number;
  /** For smart-contract wallets; without it only EOA signatures verify. */
  publicClient?: MessageVerifier;
}

/** Why a well-formed sign-in was refused; sent as `details.reason` of `401 sign_in_rejected`. */
export type SignInRejection =
  | "unsupported_version"
  | "unsupported_signature_type"
  | "unsupported_chain"
  | "domain_mismatch"
  | "uri_mismatch"
  | "issued_in_future"
  | "issued_too_long_ago"
  | "expired"
  | "not_yet_valid"
  | "bad_signature"
  | "nonce_unknown_or_used";

function reject(reason: SignInRejection, message: string, details: Record<string, unknown> = {}): never {
  throw new GatewayError("sign_in_rejected", message, { details: { reason, ...details } });
}

/**
 * Checks a sign-in proof against the request it came with (docs/recognition.md, "The flow"): version and
 * chain, domain = the host served, uri = the resource, the time window, the EIP-4361 signature, and finally
 * the nonce (issued by us, consumed here, so a proof works once). Resolves the proven address, checksummed.
 * Throws `invalid_sign_in` / `sign_in_rejected`; a smart-wallet check that cannot reach its chain throws a
 * RecognitionError (`transport`), which the caller treats as "not recognized".
 */
export async function verifySignIn(payload: SignInPayload, options: VerifySignInOptions): Promise<string> {
  const { context } = options;
  if (!isEvmAddress(payload.address)) {
    throw new GatewayError("invalid_sign_in", "address has a wrong EIP-55 checksum", {
      details: { field: "address" },
    });
  }
  const address = checksumAddress(payload.address) as Hex;
  if (payload.version !== "1")
    reject("unsupported_version", `SIWE version ${payload.version} is not supported`);
  if (payload.type !== "eip191") {
    reject("unsupported_signature_type", `signature type ${payload.type} is not supported (eip191 only)`);
  }
  const evmChains = context.networks.filter((network) => /^eip155:[0-9]+$/.test(network));
  if (!evmChains.includes(payload.chainId)) {
    reject("unsupported_chain", `chain ${payload.chainId} is not accepted here`, {
      supportedChains: evmChains,
    });
  }
  if (payload.domain !== context.host) {
    reject("domain_mismatch", `signed for ${payload.domain}, but this is ${context.host}`);
  }
  if (payload.uri !== context.resourceUrl) {
    reject("uri_mismatch", `signed for ${payload.uri}, but this resource is ${context.resourceUrl}`);
  }

  const now = context.now.getTime();
  const issuedAt = Date.parse(payload.issuedAt);
  if (issuedAt > now + options.clockSkewMs) reject("issued_in_future", "issuedAt is in the future");
  if (issuedAt < now - options.signInTtlMs - options.clockSkewMs) {
    reject("issued_too_long_ago", "the sign-in is too old; ask for a new challenge");
  }
  if (payload.expirationTime !== undefined && Date.parse(payload.expirationTime) <= now) {
    reject("expired", "the sign-in has expired; ask for a new challenge");
  }
  if (payload.notBefore !== undefined && Date.parse(payload.notBefore) > now + options.clockSkewMs) {
    reject("not_yet_valid", "the sign-in is not valid yet (notBefore)");
  }

  const message = buildSiweMessage({
    domain: payload.domain,
    address,
    statement: payload.statement,
    uri: payload.uri,
    version: payload.version,
    chainId: Number(payload.chainId.slice("eip155:".length)),
    nonce: payload.nonce,
    issuedAt: payload.issuedAt,
    expirationTime: payload.expirationTime,
    notBefore: payload.notBefore,
    requestId: payload.requestId,
    resources: payload.resources,
  });
  const signature = payload.signature as Hex;
  if (!(await signatureMatches(address, message, signature, options.publicClient))) {
    reject("bad_signature", "the signature does not match the address and message");
  }
  const nonce = options.nonces.check(payload.nonce, context.host, context.resourceUrl, now);
  if (!nonce.ok || !(await options.nonceStore.use(payload.nonce, nonce.expiresAtMs - now))) {
    reject("nonce_unknown_or_used", "the nonce was not issued here, has expired, or was already used");
  }
  return address;
}

async function signatureMatches(
  address: Hex,
  message: string,
  signature: Hex,
  publicClient: MessageVerifier | undefined,
): Promise<boolean> {
  // viem's utilities are loaded by the first sign-in, not by importing the package (docs/dependencies.md).
  const { verifyMessage } = await import("viem/utils");
  // An EOA is checked locally, with no RPC; only then a contract wallet through the public client.
  try {
    if (await verifyMessage({ address, message, signature })) return true;
  } catch {
    // not a recoverable ECDSA signature: maybe a contract wallet's
  }
  if (publicClient === undefined) return false;
  try {
    return await publicClient.verifyMessage({ address, message, signature });
  } catch (cause) {
    throw new RecognitionError("transport", "could not check a contract-wallet signature", { cause });
  }
}
