import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { readLimited, ReplyTooLargeError } from "./readLimited.js";

/** One facilitator exchange, as the client reads it. */
export interface FacilitatorReply {
  status: number;
  /** The reply's `Retry-After`, as sent. */
  retryAfter: string | null;
  /** The reply's `EXTENSION-RESPONSES` (what the facilitator's extensions say, e.g. a Bazaar listing), as sent. */
  extensionResponses: string | null;
  body: Buffer;
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

/** Connections kept per facilitator origin: enough for a busy instance, bounded so a stall cannot pile up sockets. */
const MAX_SOCKETS = 256;
/**
 * An idle connection is closed after this long, before a Node facilitator's default 5 s keep-alive
 * timeout could close it under a request that reuses it.
 */
const IDLE_SOCKET_MS = 4_000;

/** Whether an agent's socket is between requests (`_httpMessage` is the request it serves, if any). */
const idle = (socket: Socket) => (socket as Socket & { _httpMessage?: unknown })._httpMessage == null;

function timeoutError(timeoutMs: number): Error {
  const error = new Error(`no answer within ${timeoutMs} ms`);
  error.name = "TimeoutError";
  return error;
}

/**
 * Node's `http`/`https` client on one keep-alive agent per facilitator client: no WHATWG streams, abort
 * signals or Response objects per call (they were a quarter of a paid request's CPU with `fetch`). The
 * same contract as {@link fetchTransport}: one timeout over the whole exchange, the reply read up to the
 * limit, a redirect refused.
 */
export function nodeHttpTransport(base: string): FacilitatorTransport {
  const secure = new URL(base).protocol === "https:";
  const options = {
    keepAlive: true,
    maxSockets: MAX_SOCKETS,
    maxFreeSockets: MAX_SOCKETS,
    timeout: IDLE_SOCKET_MS,
  };
  const agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
  const send = secure ? httpsRequest : httpRequest;
  const exchange = ({ url, method, headers, body, timeoutMs, maxReplyBytes }: FacilitatorRequest) =>
    new Promise<FacilitatorReply>((resolve, reject) => {
      const outgoing: Record<string, string | number> = { ...headers };
      if (body !== undefined) outgoing["content-length"] = Buffer.byteLength(body);
      const request = send(url, { method, headers: outgoing, agent });
      request.once("socket", (socket: Socket) => {
        // Node's agent drops an idle connection only once closed, which takes more turns after the
        // facilitator's FIN: destroyed at the FIN, the agent no longer hands it out.
        if (!request.reusedSocket) socket.on("end", () => idle(socket) && socket.destroy());
      });
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        reject(error);
      };
      // Unref'd, as `AbortSignal.timeout`'s: a pending call does not keep a stopping process alive.
      const timer = setTimeout(() => fail(timeoutError(timeoutMs)), timeoutMs).unref();
      request.on("error", fail);
      request.on("response", (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          response.resume();
          return fail(new TypeError("fetch failed", { cause: new Error("redirect refused") }));
        }
        if (Number(response.headers["content-length"]) > maxReplyBytes) {
          response.resume();
          return fail(new ReplyTooLargeError(maxReplyBytes));
        }
        const chunks: Buffer[] = [];
        let total = 0;
        response.on("data", (chunk: Buffer) => {
          total += chunk.length;
          if (total > maxReplyBytes) return fail(new ReplyTooLargeError(maxReplyBytes));
          chunks.push(chunk);
        });
        response.on("error", fail);
        response.on("aborted", () => fail(Object.assign(new Error("reply cut"), { code: "ECONNRESET" })));
        response.on("end", () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const retryAfter = response.headers["retry-after"];
          const extensionResponses = response.headers["extension-responses"];
          resolve({
            status,
            retryAfter: typeof retryAfter === "string" ? retryAfter : null,
            extensionResponses: typeof extensionResponses === "string" ? extensionResponses : null,
            body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total),
          });
        });
      });
      request.end(body);
    });
  // Sent after this turn's I/O: a facilitator that closed an idle connection (stopped, restarted) has
  // its close read first, so the agent opens a new connection (refused: nothing sent) rather than writing
  // into the closed one, which would leave a settlement's outcome unknown.
  return (request) => new Promise<void>((resolve) => setImmediate(resolve)).then(() => exchange(request));
}
