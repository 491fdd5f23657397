import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { RequestFacts } from "./RequestFacts.js";

/** The facts of a plain `node:http`/`node:https` request: no proxy is trusted, the socket says it all. */
export function nodeRequestFacts(req: IncomingMessage): RequestFacts {
  const secure = (req.socket as Partial<TLSSocket>).encrypted === true;
  return {
    get method() {
      return req.method ?? "GET";
    },
    set method(method: string) {
      req.method = method;
    },
    get url() {
      return req.url ?? "/";
    },
    set url(url: string) {
      req.url = url;
    },
    headers: req.headers,
    secure,
    protocol: secure ? "https" : "http",
    clientAddress: req.socket.remoteAddress ?? "",
    mountPath: "",
    raw: req,
  };
}
