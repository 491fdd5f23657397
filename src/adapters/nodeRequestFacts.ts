import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { RequestFacts } from "../paywall/request/RequestFacts.js";
import { readNodeBody } from "./readNodeBody.js";

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

/** Prototype getters: one small object per request, and the peer is read only when asked (most never are). */
export class NodeRequestFacts implements RequestFacts {
  /** The peer's protocol, read once (the TLS check and the resource URL both ask; Express works it out anew each time). */
  private peerProtocol: string | undefined;

  constructor(
    readonly raw: IncomingMessage,
    private readonly peer: PeerReading,
  ) {}

  get method(): string {
    return this.raw.method ?? "GET";
  }
  set method(method: string) {
    this.raw.method = method;
  }
  get url(): string {
    return this.raw.url ?? "/";
  }
  set url(url: string) {
    this.raw.url = url;
  }
  get headers(): IncomingMessage["headers"] {
    return this.raw.headers;
  }
  get secure(): boolean {
    return this.readProtocol() === "https";
  }
  get protocol(): "http" | "https" {
    return this.readProtocol() === "https" ? "https" : "http";
  }
  get clientAddress(): string {
    return this.peer.clientAddress(this.raw);
  }
  get mountPath(): string {
    return "";
  }
  get localAddress(): string {
    return this.raw.socket.localAddress ?? "";
  }
  get localPort(): number | string {
    return this.raw.socket.localPort ?? "";
  }
  get parsedBody(): unknown {
    return (this.raw as { body?: unknown }).body;
  }
  get bodyComplete(): boolean {
    return this.raw.complete;
  }
  private readProtocol(): string {
    return (this.peerProtocol ??= this.peer.protocol(this.raw));
  }
  readBody(maxBytes: number): Promise<Uint8Array | undefined> {
    return readNodeBody(this.raw, maxBytes);
  }
}

/** The facts of a plain `node:http`/`node:https` request, its peer read by `peer`. */
export function nodeRequestFacts(req: IncomingMessage, peer: PeerReading = socketReading): RequestFacts {
  return new NodeRequestFacts(req, peer);
}
