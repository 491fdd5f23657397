import { readLimited } from "./readLimited.js";
import { nodeHttpTransport } from "./nodeHttpTransport.js";

/** One facilitator exchange, as the client reads it. */
export interface FacilitatorReply {
  status: number;
  /** The reply's `Retry-After`, as sent. */
  retryAfter: string | null;
  /** The reply's `EXTENSION-RESPONSES` (what the facilitator's extensions say, e.g. a Bazaar listing), as sent. */
  extensionResponses: string | null;
  body: Uint8Array;
}

export interface FacilitatorRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  timeoutMs: number;
  /** Largest reply body read, in bytes: past it the exchange fails with {@link ReplyTooLargeError}. */
  maxReplyBytes: number;
}

/**
 * How the client sends a request. It rejects as `fetch` does, so one classification serves both: a
 * `TimeoutError` when `timeoutMs` passes, an error whose `code` (or `cause.code`) says why the connection
 * failed, a {@link ReplyTooLargeError} for a reply over the limit, and a `TypeError` for a redirect.
 */
export type FacilitatorTransport = (request: FacilitatorRequest) => Promise<FacilitatorReply>;

/** Through a `fetch` (the one given in the options): redirects refused, the exchange under one timeout. */
export function fetchTransport(fetcher: typeof fetch): FacilitatorTransport {
  return async ({ url, method, headers, body, timeoutMs, maxReplyBytes }) => {
    const response = await fetcher(url, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
    const reply = await readLimited(response, maxReplyBytes);
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      extensionResponses: response.headers.get("extension-responses"),
      body: reply,
    };
  };
}

/**
 * How a facilitator client sends when no `fetch` is given: Node's `http`/`https` on a keep-alive agent
 * where the runtime has them (Node, Bun, Deno), else the global `fetch` (Workers).
 */
export function defaultTransport(base: string): FacilitatorTransport {
  return nodeHttpTransport(base) ?? fetchTransport((input, init) => fetch(input, init));
}
