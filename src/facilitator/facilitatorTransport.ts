import { readLimited } from "./readLimited.js";
import { nodeHttpTransport } from "./nodeHttpTransport.js";
import { undiciTransport, type Undici } from "./undiciTransport.js";

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
 * How a facilitator client sends when no `fetch` is given: on Node, an `undici` pool (half `node:http`'s CPU
 * per call), or Node's `http`/`https` on a keep-alive agent if `undici` will not load; Node's `http` on Bun
 * and Deno; the global `fetch` where the runtime has no `node:http` (Workers).
 */
export function defaultTransport(base: string): FacilitatorTransport {
  const node = nodeHttpTransport(base);
  if (node === undefined) return fetchTransport((input, init) => fetch(input, init));
  let chosen: FacilitatorTransport | undefined;
  const choosing = loadUndici().then((undici) => (chosen = undici ? undiciTransport(base, undici) : node));
  return (request) => (chosen ? chosen(request) : choosing.then((transport) => transport(request)));
}

/** A name, not a literal `import("undici")`: bundlers for Workers leave it alone (it is never loaded there). */
const UNDICI = "undici";
let undiciLoading: Promise<Undici | undefined> | undefined;

/** The `undici` package, loaded once when first wanted, on Node only; undefined elsewhere or if it will not load. */
function loadUndici(): Promise<Undici | undefined> {
  const runtime = (globalThis as { process?: { versions?: Record<string, string | undefined> } }).process;
  const onNode =
    runtime?.versions?.node !== undefined && runtime.versions.bun === undefined && !("Deno" in globalThis);
  if (!onNode) return Promise.resolve(undefined);
  undiciLoading ??= (import(UNDICI) as Promise<Undici>).then(
    (undici) => (typeof undici.Pool === "function" ? undici : undefined),
    () => undefined,
  );
  return undiciLoading;
}
