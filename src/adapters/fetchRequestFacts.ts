import { bodyTooLarge } from "../paywall/request/bodyTooLarge.js";
import { readStreamLimited } from "../common/readStreamLimited.js";
import type { RequestFacts, RequestHeaders } from "../paywall/request/RequestFacts.js";

/** The connection a request came in on, as the runtime tells it (a `node:net` socket is one). */
export interface FetchConnection {
  /** The client's address. */
  remoteAddress?: string | undefined;
  /** The address and port the request came in on. */
  localAddress?: string | undefined;
  localPort?: number | string | undefined;
  /**
   * The request target as the client sent it (Node's `req.url`), when the runtime keeps it: the paywall
   * then refuses the spellings a lenient reader takes for another path, as `x402Node()` does. Without it,
   * the paywall matches the URL as the runtime parsed it (WHATWG), which is also what the app routes.
   */
  target?: string | undefined;
}

/** How a Fetch server reads a request's connection: the runtime knows it, the `Request` does not. */
export type ConnectionOf = (request: Request) => FetchConnection | undefined;

/**
 * The facts of a Web-standard `Request`: its URL says the scheme and the port it came in on (the runtime
 * built it); the client's and the listener's addresses come from `connectionOf` (`""` when unknown: never
 * loopback). The
 * flow's rewrites (the priced path, a CBOR retry served as GET, a dropped content type) are kept here and
 * made into the `Request` handed on by {@link handedOn}.
 */
class FetchRequestFacts implements RequestFacts {
  method: string;
  url: string;
  readonly headers: RequestHeaders;
  readonly mountPath = "";
  readonly bodyComplete = false;
  /** The body is the handler's to read: the paywall never reads it first. */
  readonly parsedBody = undefined;
  private readonly target: URL;
  private readonly headerCount: number;
  /** The `Cookie` header as it came (a pass redeemed from it is dropped from it). */
  private readonly cookie: string | string[] | undefined;
  private readonly originalUrl: string;
  /** The body once the paywall read it (then the original's stream is spent). */
  private body: Promise<Uint8Array> | undefined;

  constructor(
    readonly raw: Request,
    private readonly connection: FetchConnection | undefined,
  ) {
    this.target = new URL(raw.url);
    this.method = raw.method;
    this.url = connection?.target ?? this.target.pathname + this.target.search;
    this.originalUrl = this.url;
    const headers: RequestHeaders = {};
    // Headers iterate lower-case names, a repeated header's values joined with ", " (as Node joins most).
    raw.headers.forEach((value, name) => (headers[name] = value));
    this.headers = headers;
    this.headerCount = Object.keys(headers).length;
    this.cookie = headers.cookie;
  }

  get secure(): boolean {
    return this.target.protocol === "https:";
  }
  get protocol(): "http" | "https" {
    return this.secure ? "https" : "http";
  }
  get clientAddress(): string {
    return this.connection?.remoteAddress ?? "";
  }
  get localAddress(): string {
    return this.connection?.localAddress ?? "";
  }
  get localPort(): number | string {
    return this.connection?.localPort ?? "";
  }

  /** Read the body (a route's `requestBody` check) into memory; the handler is handed a copy of it. */
  async readBody(maxBytes: number): Promise<Uint8Array> {
    this.body ??= readWebBody(this.raw, maxBytes);
    return this.body;
  }

  /** The request to hand on: the original, or a copy with what the flow rewrote (or its body, once read). */
  handedOn(): Request {
    const { raw } = this;
    const url = this.target.pathname + this.target.search;
    const unchanged =
      this.method === raw.method &&
      this.url === url &&
      Object.keys(this.headers).length === this.headerCount &&
      this.body === undefined &&
      this.headers.cookie === this.cookie; // a pass's cookie dropped from the others
    if (unchanged) return raw;
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const hasBody = this.method !== "GET" && this.method !== "HEAD";
    const body = this.body === undefined ? raw.body : replay(this.body);
    return new Request(new URL(this.url, this.target), {
      method: this.method,
      headers,
      body: hasBody ? body : null,
      signal: raw.signal,
      ...(hasBody && body !== null ? { duplex: "half" } : {}),
    } as RequestInit);
  }
}

/** The bytes read, as a stream again (the handler reads them as it would have read the original). */
function replay(body: Promise<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const bytes = await body;
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** A Web request's whole body, refused `payload_too_large` as soon as it passes `maxBytes`. */
function readWebBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  return readStreamLimited(request.body, maxBytes, () => bodyTooLarge(maxBytes));
}

export type { FetchRequestFacts };

/** The facts of a Web-standard `Request`. */
export function fetchRequestFacts(request: Request, connectionOf?: ConnectionOf): FetchRequestFacts {
  return new FetchRequestFacts(request, connectionOf?.(request));
}
