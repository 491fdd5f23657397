import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import type { Socket } from "node:net";
import { nodeBuiltin } from "../common/nodeBuiltin.js";
import { concatBytes, utf8ByteLength } from "../common/bytes.js";
import { ReplyTooLargeError } from "./readLimited.js";
import { IDLE_SOCKET_MS, MAX_SOCKETS, afterPendingIo, timeoutError } from "./transportLimits.js";
import type { FacilitatorReply, FacilitatorRequest, FacilitatorTransport } from "./facilitatorTransport.js";

/** The part of `node:http` and `node:https` used here, asked of the runtime (Workers have none). */
interface NodeHttp {
  Agent: new (options: Record<string, unknown>) => Agent;
  request(url: string, options: RequestOptions): ClientRequest;
}

/** Whether an agent's socket is between requests (`_httpMessage` is the request it serves, if any). */
const idle = (socket: Socket) => (socket as Socket & { _httpMessage?: unknown })._httpMessage == null;

/**
 * Node's `http`/`https` client on one keep-alive agent per facilitator client: no WHATWG streams, abort
 * signals or Response objects per call (they were a quarter of a paid request's CPU with `fetch`). The
 * same contract as {@link fetchTransport}: one timeout over the whole exchange, the reply read up to the
 * limit, a redirect refused.
 */
export function nodeHttpTransport(base: string): FacilitatorTransport | undefined {
  const secure = new URL(base).protocol === "https:";
  const http = nodeBuiltin<NodeHttp>(secure ? "node:https" : "node:http");
  if (http === undefined) return undefined;
  const options = {
    keepAlive: true,
    maxSockets: MAX_SOCKETS,
    maxFreeSockets: MAX_SOCKETS,
    timeout: IDLE_SOCKET_MS,
  };
  const agent = new http.Agent(options);
  const send = http.request;
  const exchange = ({ url, method, headers, body, timeoutMs, maxReplyBytes }: FacilitatorRequest) =>
    new Promise<FacilitatorReply>((resolve, reject) => {
      const outgoing: Record<string, string | number> = { ...headers };
      if (body !== undefined)
        outgoing["content-length"] = typeof body === "string" ? utf8ByteLength(body) : body.byteLength;
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
        const chunks: Uint8Array[] = [];
        let total = 0;
        response.on("data", (chunk: Uint8Array) => {
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
            body: chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(chunks, total),
          });
        });
      });
      request.end(body);
    });
  return (request) => afterPendingIo().then(() => exchange(request));
}
