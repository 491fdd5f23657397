import { base64OfText, concatBytes } from "../common/bytes.js";
import { ReplyTooLargeError } from "./readLimited.js";
import type { FacilitatorReply, FacilitatorRequest, FacilitatorTransport } from "./facilitatorTransport.js";
import { IDLE_SOCKET_MS, MAX_SOCKETS, afterPendingIo, timeoutError } from "./transportLimits.js";

/** The part of the `undici` package used here (loaded at run time: the Fetch adapters' graph never names it). */
export interface Undici {
  Pool: new (origin: string, options: Record<string, unknown>) => UndiciPool;
}

interface UndiciPool {
  dispatch(options: Record<string, unknown>, handler: DispatchHandler): boolean;
}

interface DispatchController {
  abort(reason: Error): void;
}

type ReplyHeaders = Record<string, string | string[] | undefined>;

interface DispatchHandler {
  onRequestStart(controller: DispatchController): void;
  onResponseStart(controller: DispatchController, status: number, headers: ReplyHeaders): void;
  onResponseData(controller: DispatchController, chunk: Uint8Array): void;
  onResponseEnd(controller: DispatchController): void;
  onResponseError(controller: DispatchController, error: Error): void;
}

const hasAuthorization = (headers: Record<string, string>) =>
  Object.keys(headers).some((name) => name.toLowerCase() === "authorization");

const single = (value: string | string[] | undefined) => (typeof value === "string" ? value : null);

/**
 * A keep-alive pool of `undici` (Node's own HTTP client library, on which its `fetch` is built) per
 * facilitator, driven through `dispatch`: no streams, no `Request`/`Response` objects, no per-call
 * listeners. It costs about half the CPU of `node:http` per call (bench: docs/benchmarks.md). The same
 * contract as the other transports: one timeout over the whole exchange, the reply read up to the limit,
 * a redirect refused, and failures shaped as `fetch`'s (an error `code` saying whether anything was sent).
 */
export function undiciTransport(base: string, undici: Undici): FacilitatorTransport {
  const { origin, username, password } = new URL(base);
  // Credentials in the URL are sent as Basic auth, as `node:http` sends them (a Pool keeps only the origin).
  const basic =
    username === "" && password === ""
      ? undefined
      : `Basic ${base64OfText(`${decodeURIComponent(username)}:${decodeURIComponent(password)}`)}`;
  const pool = new undici.Pool(origin, {
    connections: MAX_SOCKETS,
    keepAliveTimeout: IDLE_SOCKET_MS,
  });
  const exchange = ({ url, method, headers, body, timeoutMs, maxReplyBytes }: FacilitatorRequest) =>
    new Promise<FacilitatorReply>((resolve, reject) => {
      const target = new URL(url);
      let controller: DispatchController | undefined;
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        controller?.abort(error);
        reject(error);
      };
      // Unref'd, as `AbortSignal.timeout`'s: a pending call does not keep a stopping process alive.
      const timer = setTimeout(() => fail(timeoutError(timeoutMs)), timeoutMs).unref();
      let status = 0;
      let replyHeaders: ReplyHeaders = {};
      const chunks: Uint8Array[] = [];
      let total = 0;
      pool.dispatch(
        {
          origin,
          path: `${target.pathname}${target.search}`,
          method,
          headers:
            basic === undefined || hasAuthorization(headers) ? headers : { ...headers, authorization: basic },
          body,
        },
        {
          onRequestStart(own) {
            controller = own;
            // Timed out before the request could start: it must not be sent at all.
            if (settled) own.abort(timeoutError(timeoutMs));
          },
          onResponseStart(own, statusCode, received) {
            if (statusCode < 200) return; // an informational answer: the real one follows
            status = statusCode;
            replyHeaders = received;
            if (status >= 300 && status < 400)
              return fail(new TypeError("fetch failed", { cause: new Error("redirect refused") }));
            if (Number(received["content-length"]) > maxReplyBytes)
              fail(new ReplyTooLargeError(maxReplyBytes));
          },
          onResponseData(_own, chunk) {
            if (settled) return;
            total += chunk.length;
            if (total > maxReplyBytes) return fail(new ReplyTooLargeError(maxReplyBytes));
            chunks.push(chunk);
          },
          onResponseEnd() {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({
              status,
              retryAfter: single(replyHeaders["retry-after"]),
              extensionResponses: single(replyHeaders["extension-responses"]),
              body: chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(chunks, total),
            });
          },
          onResponseError(_own, error) {
            fail(error);
          },
        },
      );
    });
  return (request) => afterPendingIo().then(() => exchange(request));
}
