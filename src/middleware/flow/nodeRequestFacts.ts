import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { RequestFacts } from "./RequestFacts.js";

/** How a server reads who is at the other end of a request: from the socket, or a trusted proxy's headers. */
export interface PeerReading {
  /** `https` when the client reached us over TLS. */
  protocol(req: IncomingMessage): string;
  clientAddress(req: IncomingMessage): string;
}

/** No proxy is trusted: the socket says it all. */
export const socketReading: PeerReading = {
  protocol: (req) => ((req.socket as Partial<TLSSocket>).encrypted === true ? "https" : "http"),
  clientAddress: (req) => req.socket.remoteAddress ?? "",
};

/** The facts of a plain `node:http`/`node:https` request, its peer read by `peer` (lazily: most need none). */
export function nodeRequestFacts(req: IncomingMessage, peer: PeerReading = socketReading): RequestFacts {
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
    get secure() {
      return peer.protocol(req) === "https";
    },
    get protocol() {
      return peer.protocol(req) === "https" ? "https" : "http";
    },
    get clientAddress() {
      return peer.clientAddress(req);
    },
    mountPath: "",
    raw: req,
  };
}
