import { decodeExtensionResponses, type ExtensionResponses } from "../protocol/decodeExtensionResponses.js";
import type { z } from "zod/v4";
import { GatewayError } from "../protocol/errors.js";
import {
  settleResponseSchema,
  supportedResponseSchema,
  verifyResponseSchema,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from "../protocol/schemas.js";
import { FACILITATOR_DEFAULTS as DEFAULTS, type FacilitatorHeaders } from "./facilitatorSettings.js";
import type { Facilitator } from "./Facilitator.js";
import type { CborFacilitator, CborSettlementStatus } from "./CborFacilitator.js";
import {
  decodeCborSettleResponse,
  decodeCborSettlementStatus,
  decodeCborVerifyResponse,
  encodeCborFacilitatorRequest,
  type CborFacilitatorRequest,
  type CborSettleResponse,
  type CborVerifyResponse,
} from "../protocol/cbor/facilitatorMessages.js";
import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";
import { intentDigestSegment } from "./intentDigestSegment.js";
import { ReplyTooLargeError } from "./readLimited.js";
import {
  defaultTransport,
  fetchTransport,
  type FacilitatorReply,
  type FacilitatorTransport,
} from "./facilitatorTransport.js";
import { facilitatorAuthHeaders, type FacilitatorAuth } from "./facilitatorAuth.js";

export interface HttpFacilitatorOptions {
  /** Base URL; `/verify`, `/settle` and `/supported` are appended. */
  url: string;
  /** Timeout of `/verify` (and of the CBOR settlement status read), in ms. */
  timeoutMs?: number;
  /** Timeout of `/settle`, in ms. */
  settleTimeoutMs?: number;
  /** Timeout of `/supported`, in ms. */
  supportedTimeoutMs?: number;
  /** Extra headers (e.g. auth): a fixed map, or a function of the endpoint. */
  headers?: Record<string, string> | FacilitatorHeaders | undefined;
  /** Auth minted at each call (a bearer token from the environment), over `headers`. */
  auth?: FacilitatorAuth | undefined;
  /**
   * Send through this `fetch` instead of the default transport: on Node an `undici` keep-alive pool, else
   * Node's `http`/`https` on a keep-alive agent, else (Workers) the global `fetch`.
   */
  fetch?: typeof fetch | undefined;
  /** Send through this transport (e.g. `nodeHttpTransport(url)`), over `fetch` and the default. */
  transport?: FacilitatorTransport | undefined;
  /** Told what a `/verify` or `/settle` reply's `EXTENSION-RESPONSES` header says (diagnostics; must not throw). */
  onExtensionResponses?: ((endpoint: "verify" | "settle", responses: ExtensionResponses) => void) | undefined;
}

type Endpoint = "verify" | "settle" | "supported" | "settlements";

/** Seconds a client is told to wait when the facilitator cannot answer. */
const RETRY_AFTER_SECONDS = 5;
/** Connection errors that mean the request never left this process (as does a refusal without a code, e.g. a blocked port). */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/** Reads a reply as Node's `Buffer#toString` did: malformed bytes replaced, a leading BOM kept (so refused as JSON). */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });
/** Largest facilitator reply read, in bytes. */
const MAX_REPLY_BYTES = 1024 * 1024;

/**
 * Client of a facilitator's HTTP API. Every call has a timeout; replies are validated. Failures are
 * classified: unreachable, timed out or 5xx → `facilitator_unavailable` (503, Retry-After);
 * a malformed reply or a refused request → `facilitator_error` (502). An invalid payment is not a
 * failure: it comes back as `isValid: false` / `success: false`. Speaks JSON, and
 * `application/x402+cbor` through `verifyCbor` / `settleCbor`.
 */
export class HttpFacilitator implements Facilitator, CborFacilitator {
  private readonly base: string;
  private readonly transport: FacilitatorTransport;
  private readonly auth: (() => Promise<Record<string, string>>) | undefined;
  private readonly timeouts: Record<Endpoint, number>;

  constructor(private readonly options: HttpFacilitatorOptions) {
    this.base = options.url.replace(/\/+$/, "");
    this.transport =
      options.transport ?? (options.fetch ? fetchTransport(options.fetch) : defaultTransport(this.base));
    this.auth = options.auth && facilitatorAuthHeaders(options.auth);
    this.timeouts = {
      verify: options.timeoutMs ?? DEFAULTS.verifyTimeoutMs,
      settle: options.settleTimeoutMs ?? DEFAULTS.settleTimeoutMs,
      supported: options.supportedTimeoutMs ?? DEFAULTS.supportedTimeoutMs,
      // A status read is as short as a verify.
      settlements: options.timeoutMs ?? DEFAULTS.verifyTimeoutMs,
    };
  }

  verify(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<VerifyResponse> {
    const body = requestBody(paymentPayload, paymentRequirements);
    return this.withOneRetry(() => this.call("verify", verifyResponseSchema, body));
  }

  /** Never retried: a second settle could move money twice. */
  settle(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<SettleResponse> {
    return this.call("settle", settleResponseSchema, requestBody(paymentPayload, paymentRequirements));
  }

  supported(): Promise<SupportedResponse> {
    return this.withOneRetry(() => this.call("supported", supportedResponseSchema));
  }

  /** Retry once, only when the facilitator could not be reached at all (nothing was processed). */
  private async withOneRetry<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof GatewayError && error.details.reason === "unreachable") return attempt();
      throw error;
    }
  }

  /** `body`: the request's JSON text. */
  private async call<T>(endpoint: Endpoint, schema: z.ZodType<T>, body?: string): Promise<T> {
    const { response, reply } = await this.send(endpoint, "application/json", body);
    const parsed = schema.safeParse(parseJson(UTF8.decode(reply)));
    if (parsed.success) return parsed.data;
    throw this.refused(
      endpoint,
      response,
      parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    );
  }

  /**
   * `POST /verify` in `application/x402+cbor` (docs/cbor.md, "Facilitator calls"); retried once only when
   * unreachable.
   */
  verifyCbor(request: CborFacilitatorRequest): Promise<CborVerifyResponse> {
    return this.withOneRetry(() => this.callCbor("verify", request, decodeCborVerifyResponse));
  }

  /** `POST /settle` in `application/x402+cbor`. Never retried: a second settle could move money twice. */
  settleCbor(request: CborFacilitatorRequest): Promise<CborSettleResponse> {
    return this.callCbor("settle", request, decodeCborSettleResponse);
  }

  /**
   * `GET /settlements/<intent digest>` in `application/x402+cbor`: whether the intent settled, with its
   * receipt. A read, so retried once when unreachable, as verify is.
   */
  async cborSettlementOf(intentDigest: Uint8Array): Promise<CborSettlementStatus> {
    const path = `settlements/${intentDigestSegment(intentDigest)}`;
    return this.withOneRetry(() => this.callCbor("settlements", undefined, decodeCborSettlementStatus, path));
  }

  private async callCbor<T>(
    endpoint: Endpoint,
    request: CborFacilitatorRequest | undefined,
    decode: (bytes: Uint8Array) => T,
    path: string = endpoint,
  ): Promise<T> {
    const { response, reply } = await this.send(
      endpoint,
      CBOR_MEDIA_TYPE,
      request === undefined ? undefined : encodeCborFacilitatorRequest(request),
      path,
    );
    try {
      return decode(reply);
    } catch (error) {
      throw this.refused(endpoint, response, [(error as Error).message]);
    }
  }

  /** One call: timeout, size cap, and the failures every format shares (unreachable, timeout, 5xx). */
  private async send(
    endpoint: Endpoint,
    mediaType: string,
    body: string | Uint8Array | undefined,
    path: string = endpoint,
  ): Promise<{ response: FacilitatorReply; reply: Uint8Array }> {
    const extra = this.extraHeaders(endpoint);
    let minted: Record<string, string>;
    try {
      minted = extra instanceof Promise ? await extra : extra;
    } catch (error) {
      // Nothing was sent ("unreachable"): a payment is released, never left with an unknown outcome.
      throw new GatewayError(
        "facilitator_unavailable",
        `the facilitator's auth for /${endpoint} could not be made`,
        {
          details: { endpoint, reason: "unreachable" },
          cause: error,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        },
      );
    }
    const headers: Record<string, string> = { accept: mediaType, ...minted };
    if (body !== undefined) headers["content-type"] = mediaType;
    let response: FacilitatorReply;
    try {
      response = await this.transport({
        url: `${this.base}/${path}`,
        method: body === undefined ? "GET" : "POST",
        headers,
        body,
        timeoutMs: this.timeouts[endpoint],
        maxReplyBytes: MAX_REPLY_BYTES,
      });
    } catch (error) {
      if (error instanceof ReplyTooLargeError) {
        // It answered, too much: like a malformed reply (for /settle, an outcome to check on chain).
        throw new GatewayError(
          "facilitator_error",
          `the facilitator's /${endpoint} reply is over ${MAX_REPLY_BYTES} bytes`,
          {
            details: { endpoint, reason: "malformed" },
            cause: error,
          },
        );
      }
      const timedOut =
        error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      // "unreachable": no connection, so nothing was sent; "cut": the request may have been processed.
      const failure = error as { code?: unknown; cause?: { code?: unknown } };
      const code = failure.cause?.code ?? failure.code;
      const causeCode = typeof code === "string" ? code : "";
      const reason = timedOut
        ? "timeout"
        : causeCode === "" || NOT_SENT.has(causeCode)
          ? "unreachable"
          : "cut";
      throw new GatewayError(
        "facilitator_unavailable",
        timedOut
          ? `the facilitator did not answer /${endpoint} within ${this.timeouts[endpoint]} ms`
          : reason === "cut"
            ? `the connection to the facilitator was cut during /${endpoint}`
            : `the facilitator could not be reached for /${endpoint}`,
        {
          details: { endpoint, reason },
          cause: error,
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        },
      );
    }
    if (response.status >= 500) {
      throw new GatewayError(
        "facilitator_unavailable",
        `the facilitator answered /${endpoint} with ${response.status}`,
        {
          details: { endpoint, reason: "server_error", status: response.status },
          retryAfterSeconds: retryAfter(response) ?? RETRY_AFTER_SECONDS,
        },
      );
    }
    if ((endpoint === "verify" || endpoint === "settle") && response.extensionResponses !== null) {
      const responses = decodeExtensionResponses(response.extensionResponses);
      if (responses !== undefined) this.options.onExtensionResponses?.(endpoint, responses);
    }
    return { response, reply: response.body };
  }

  /** A reply that is not the expected shape: malformed (2xx) or a refusal (4xx). */
  private refused(endpoint: Endpoint, response: FacilitatorReply, issues: string[]): GatewayError {
    const ok = response.status >= 200 && response.status < 300;
    return new GatewayError(
      "facilitator_error",
      ok
        ? `the facilitator's /${endpoint} reply is malformed`
        : `the facilitator refused /${endpoint} with ${response.status}`,
      {
        details: {
          endpoint,
          reason: ok ? "malformed" : "rejected",
          status: response.status,
          issues,
        },
      },
    );
  }

  private extraHeaders(endpoint: Endpoint): Record<string, string> | Promise<Record<string, string>> {
    const { headers } = this.options;
    const given = headers === undefined ? {} : typeof headers === "function" ? headers(endpoint) : headers;
    if (this.auth === undefined) return given;
    return Promise.all([given, this.auth()]).then(([base, auth]) => ({ ...base, ...auth }));
  }
}

/**
 * The JSON text of each requirements object sent so far: a route's requirements are built once and
 * never changed, so they are serialised once rather than on every verify and settle (a route priced by
 * a function builds new ones per request, which this then holds only as long as they live).
 */
const requirementsJson = new WeakMap<PaymentRequirements, string>();

/** `{ x402Version: 2, paymentPayload, paymentRequirements }` as JSON text. */
function requestBody(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): string {
  let requirements = requirementsJson.get(paymentRequirements);
  if (requirements === undefined) {
    requirements = JSON.stringify(paymentRequirements);
    requirementsJson.set(paymentRequirements, requirements);
  }
  return `{"x402Version":2,"paymentPayload":${JSON.stringify(paymentPayload)},"paymentRequirements":${requirements}}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryAfter(response: FacilitatorReply): number | undefined {
  const value = Number(response.retryAfter);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
