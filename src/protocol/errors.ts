import { BaseError } from "../common/BaseError.js";
import type { ErrorCatalogueEntry } from "../common/ErrorCatalogueEntry.js";

/**
 * The gateway's error catalogue: every error that leaves the gateway has one of these codes, the HTTP
 * status written beside it, when it is answered (the table of `docs/errors.md` is generated from it by
 * `npm run docs`), and one flat body shape `{ error, message, details }`.
 */
export const ERROR_CATALOGUE = {
  invalid_payment: {
    status: 400,
    when: "`PAYMENT-SIGNATURE` is not base64 JSON (`details.stage`) or a field is wrong (`details.field`); CBOR: `details.problem`, `at` (docs/cbor.md)",
  },
  invalid_sign_in: {
    status: 400,
    when: "a malformed `SIGN-IN-WITH-X`: not base64 JSON (`details.stage`), a wrong shape (`details.issues`), or an address with a wrong EIP-55 checksum",
  },
  invalid_path: {
    status: 400,
    when: "encoded `/` or `\\` in a path that could reach a priced route, or an `X-Original-URL`, `X-Rewrite-URL` or `X-Forwarded-Prefix` naming a path priced differently (`details.reason`)",
  },
  invalid_method_override: {
    status: 400,
    when: "`X-HTTP-Method-Override`, `X-HTTP-Method`, `X-Method-Override` or the query's `_method` names a method priced differently from the request's, or a form POST to a path priced for another method (`details.method`)",
  },
  invalid_header: {
    status: 400,
    when: "gateway: `Connection` naming a framing header, or a `Transfer-Encoding` other than `chunked` (`details.header`)",
  },
  body_not_allowed: {
    status: 400,
    when: "gateway: a GET, HEAD, DELETE, OPTIONS or TRACE with a body (`Content-Length` above 0 or `Transfer-Encoding`); nothing is verified, the connection is closed",
  },
  invalid_request_body: {
    status: 400,
    when: "a route with `requestBody`: the body is missing, not JSON, or breaks the route's JSON Schema (`details.reason`, `errors`: up to 10 `{ path, message }`); refused before any offer, reservation or settlement",
  },
  invalid_revocation: {
    status: 400,
    when: "a revocation (`revoke()`, the admin endpoint) that is malformed, or whose signed proof is untrusted or names another payer",
  },
  sign_in_rejected: {
    status: 401,
    when: "an unacceptable `SIGN-IN-WITH-X`: another version, chain, domain or uri, outside its time window, a bad signature, or a nonce unknown or used (`details.reason`)",
  },
  admin_unauthorized: {
    status: 401,
    when: "the admin endpoint, or `metrics.path` on the gateway's listener (`metrics.onGatewayListener`), without `Authorization: Bearer <admin.token>`",
  },
  payment_required: { status: 402, when: "no payment: the offer" },
  payment_mismatch: {
    status: 402,
    when: "the payment is for other terms (`details.field`, `expected`, `received`)",
  },
  payment_already_used: { status: 402, when: "the payment already paid for a response" },
  pass_rejected: {
    status: 402,
    when: "`Authorization: Bearer` shows a pass token that is malformed, not signed by this gateway, for another scope, expired, used up or ended (`details.reason`); with the offer",
  },
  extension_echo_mismatch: {
    status: 402,
    when: "the payment's `extensions` changes what the offer advertised for an extension (`details.extension`), as `@x402/core` checks the echo; the offer again; nothing reserved, verified or settled",
  },
  verification_failed: {
    status: 402,
    when: "the facilitator found it invalid (`details.reason` is its reason)",
  },
  settlement_failed: {
    status: 402,
    when: "settlement answered `success: false`; with `PAYMENT-RESPONSE`",
  },
  delegation_invalid: {
    status: 402,
    when: "CBOR: a `delegation_chain` that does not hold (`details.problem`: `malformed`, `bad_signature`, `broken_link`, `cycle`, `too_long`, `wrong_subject`, `not_accepted`)",
  },
  delegation_expired: {
    status: 402,
    when: "CBOR: a grant of the chain is past its `valid until` (`details.link`)",
  },
  delegation_out_of_scope: {
    status: 402,
    when: "CBOR: a grant does not cover this merchant / service (`details.link`, `scope`)",
  },
  delegation_cap_exceeded: {
    status: 402,
    when: "CBOR: a grant caps another currency, less than this price, or its total is spent (`details.link`, `cap`, `exceeded`: `currency`, `amount`, `total`)",
  },
  revelation_mask_violation: {
    status: 402,
    when: "CBOR: an intent part comes in another form than the route's revelation mask says, e.g. in clear where it must be hidden (`details.field`, `expected`, `received`; docs/cbor.md, Revelation masks)",
  },
  signer_not_accepted: {
    status: 402,
    when: "CBOR: the intent names a signer backend the route's `cbor.signers` does not list (`details.backend`, `accepted`)",
  },
  signer_not_built: {
    status: 402,
    when: "CBOR: the intent names a signer backend of the seed this gateway does not build (`details.backend`, `phase`; docs/cbor.md, Signer backends)",
  },
  signer_rpc_not_configured: {
    status: 402,
    when: "CBOR, EvmSigner: the signature does not recover to the subject's key (an EOA) and no `rpcUrls` entry for the paywall's `network` lets an EIP-1271 contract wallet be asked (docs/cbor.md, Signer backends)",
  },
  humanity_claim_required: {
    status: 402,
    when: "CBOR, a route with `acceptsHumanityGate`: the payment carries no `humanity_claim`",
  },
  humanity_claim_invalid: {
    status: 402,
    when: "the humanity claim is malformed, its signature fails, or it is not `is_human` (`details.problem`)",
  },
  humanity_issuer_untrusted: {
    status: 402,
    when: "the humanity claim's issuer is not in the route's `humanityIssuers` (`details.issuer`)",
  },
  humanity_claim_mismatch: {
    status: 402,
    when: "the humanity claim is about another key than the intent's subject",
  },
  humanity_claim_expired: {
    status: 402,
    when: "the humanity claim's validity (`details.validUntil`) has passed",
  },
  tls_required: { status: 403, when: "plain HTTP where HTTPS is required" },
  request_denied: {
    status: 403,
    when: "an `onProtectedRequest` hook (`hooks`, the gateway's `plugins`) refused the request with `{ abort: true, reason }` (`details.reason`); nothing was offered, verified or served",
  },
  not_found: {
    status: 404,
    when: "gateway: no upstream serves the path, or nothing is served at that path under `admin.path`",
  },
  method_not_allowed: {
    status: 405,
    when: "the admin endpoint with another method than `POST`; a method no route names (TRACE, PURGE, PROPFIND…) on a priced path; with `Allow`",
  },
  payment_in_progress: { status: 409, when: "the same payment is being used by another request" },
  payment_identifier_conflict: {
    status: 409,
    when: "a `payment-identifier` already used by another payment within its window (`details.identifier`); the identifier's first response is kept for its own payment only",
  },
  length_required: {
    status: 411,
    when: 'a `settle: "before"` route got a chunked body not read yet: send a `Content-Length`',
  },
  payload_too_large: {
    status: 413,
    when: "gateway: a request body over `limits.maxBodyBytes`, declared or streamed (`details.limit`); a route with `requestBody`: a body over `maxBodyBytes` (the gateway's `limits.maxBodyBytes`); the admin endpoint's body over its limit",
  },
  unsupported_media_type: {
    status: 415,
    when: "a payment format (`application/x402…` other than `application/x402+cbor`, or a malformed one) this gateway does not speak: on a priced route, or on any path when the request has a body (`details.mediaType`)",
  },
  header_too_large: {
    status: 431,
    when: "`PAYMENT-SIGNATURE` or `SIGN-IN-WITH-X` over 16 KiB (a CBOR payment: over 64 KiB of CBOR)",
  },
  internal_error: {
    status: 500,
    when: "a bug, or a setup the paywall cannot work with (a ledger that cannot count delegation grants); logged",
  },
  hook_failed: {
    status: 500,
    when: "an `onProtectedRequest` hook threw or did not answer within 10 s (`details.hook`); nothing was offered, verified or served; what it threw is logged, never sent. Other hooks that fail are logged and skipped, as the official skips them",
  },
  route_function_failed: {
    status: 500,
    when: "`x402()`/`x402Node()`: a route's `price`, `payTo` or `unpaidResponseBody` function threw or did not answer within 10 s (`details.field`, `timedOut`); nothing was verified, settled or served; logged",
  },
  route_function_invalid: {
    status: 500,
    when: "`x402()`/`x402Node()`: a route's `price` or `payTo` function returned what cannot be paid (`details.field`, `option`; what it returned is logged, never sent): a negative, zero, fractional or non-numeric price, an unknown asset, a bad address; or an `unpaidResponseBody` that is no `{ contentType, body }`; nothing was verified, settled or served",
  },
  facilitator_error: {
    status: 502,
    when: "the facilitator's reply was malformed or it refused the request",
  },
  upstream_unavailable: {
    status: 502,
    when: "gateway: the upstream could not be reached or closed the connection before answering (`details.reason`)",
  },
  usage_invalid: {
    status: 502,
    when: "a metered (`upto`) route's answer reported usage that is not a decimal amount or is above the authorization (`details.header`); nothing settled",
  },
  response_too_large: { status: 502, when: "the held response exceeded `maxHeldResponseBytes`" },
  facilitator_unavailable: {
    status: 503,
    when: "the facilitator is unreachable, timed out or answered 5xx; with `Retry-After`",
  },
  ledger_unavailable: {
    status: 503,
    when: "the payment ledger (Redis) cannot be reached in time: nothing is verified; with `Retry-After`; the `warn` log line's `err` says why (a timeout, `WAIT` short of replicas)",
  },
  paywall_unavailable: {
    status: 503,
    when: 'a start-up check has not passed yet or failed (an upstream\'s OpenAPI document for `requestBody: { openApi: true }`; `/supported` with `facilitatorSupport: "require"`): every priced request is refused, nothing verified; retried after `Retry-After` (`details.check`: `openApi` or `facilitatorSupport`; the reason is logged)',
  },
  settlement_unknown: {
    status: 503,
    when: "`/settle` timed out or was cut, outcome not known yet; retry with the same payment",
  },
  signer_unavailable: {
    status: 503,
    when: "CBOR: the layer-2 node could not check a contract account's signature (down, timed out, or none configured), or the EVM node an EIP-1271 contract wallet's (down, timed out): refused, never let through; with `Retry-After`",
  },
  revocation_unavailable: {
    status: 503,
    when: "Redis could not take a revocation: denied on this instance only; retry; with `Retry-After`",
  },
  upstream_timeout: {
    status: 504,
    when: "gateway: the upstream did not connect within its `connectTimeoutMs` or stayed silent for its `timeoutMs` (`details.reason`)",
  },
} as const satisfies Record<string, ErrorCatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The HTTP status of each code (from {@link ERROR_CATALOGUE}). */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERROR_CATALOGUE).map(([code, entry]) => [code, entry.status]),
) as { readonly [Code in ErrorCode]: (typeof ERROR_CATALOGUE)[Code]["status"] };

export interface GatewayErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Seconds a client should wait before retrying; sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** Response headers the answer must carry (`Allow` on a 405). */
  headers?: Record<string, string>;
}

/** Base of every error the gateway answers with. `code` is the stable wire code; `message` is one actionable line. */
export class GatewayError extends BaseError {
  declare readonly code: ErrorCode;
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(code, message, { ...options, docsPath: "docs/errors.md" });
    this.status = ERROR_STATUS[code];
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
  }

  /** The flat error body every non-402 error is sent as. */
  toBody(): { error: ErrorCode; message: string; details: Record<string, unknown> } {
    return { error: this.code, message: this.message, details: this.details };
  }
}
