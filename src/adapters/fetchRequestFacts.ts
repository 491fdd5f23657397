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

  /** The request to hand on: the original, or a copy with what the flow rewrote. */
  handedOn(): Request {
    const { raw } = this;
    const url = this.target.pathname + this.target.search;
    const unchanged =
      this.method === raw.method &&
      this.url === url &&
      Object.keys(this.headers).length === this.headerCount &&
      this.headers.cookie === this.cookie; // a pass's cookie dropped from the others
    if (unchanged) return raw;
    const headers = new Headers();
    for (const [name, value] of Object.entries(this.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const hasBody = this.method !== "GET" && this.method !== "HEAD";
    return new Request(new URL(this.url, this.target), {
      method: this.method,
      headers,
      body: hasBody ? raw.body : null,
      signal: raw.signal,
      ...(hasBody && raw.body !== null ? { duplex: "half" } : {}),
    } as RequestInit);
  }
}

export type { FetchRequestFacts };

/** The facts of a Web-standard `Request`. */
export function fetchRequestFacts(request: Request, connectionOf?: ConnectionOf): FetchRequestFacts {
  return new FetchRequestFacts(request, connectionOf?.(request));
}
