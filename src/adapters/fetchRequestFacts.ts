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
  /**
   * The header lines as the runtime received them (name, value, name, value…: Node's `rawHeaders`), when the
   * `Request`'s `Headers` are built lazily from them (`@hono/node-server`): the paywall then asks the `Request`
   * for these names one by one rather than making the runtime build the whole `Headers` to iterate.
   */
  rawHeaders?: readonly string[] | undefined;
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
  private parsedUrl: URL | undefined;
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
    this.method = raw.method;
    this.url = connection?.target ?? this.target.pathname + this.target.search;
    this.originalUrl = this.url;
    this.headers = headersOf(raw.headers, connection?.rawHeaders);
    this.headerCount = Object.keys(this.headers).length;
    this.cookie = this.headers.cookie;
  }

  /** The request's URL, parsed when first asked for (a 402 answered from the runtime's target never needs it). */
  private get target(): URL {
    return (this.parsedUrl ??= new URL(this.raw.url));
  }

  get secure(): boolean {
    return this.raw.url.startsWith("https:");
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

/**
 * A `Headers` as a record: lower-case names, a repeated header's values joined as `get` joins them (", ", or
 * "; " for Cookie). With the names the runtime received, each is asked for by name (`get` is what a lazy
 * `Headers` answers without building itself); a header set on the `Request` since is then not seen.
 */
function headersOf(source: Headers, rawHeaders: readonly string[] | undefined): RequestHeaders {
  const headers: RequestHeaders = {};
  if (rawHeaders === undefined) {
    source.forEach((value, name) => (headers[name] = value));
    return headers;
  }
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    if (name.startsWith(":") || Object.hasOwn(headers, name)) continue;
    // Iterating gives each Set-Cookie apart (the last one stays): the same here, should a client send one.
    const value = name === "set-cookie" ? source.getSetCookie().at(-1) : source.get(name);
    if (value !== null && value !== undefined) headers[name] = value;
  }
  return headers;
}

export type { FetchRequestFacts };

/** The facts of a Web-standard `Request`. */
export function fetchRequestFacts(request: Request, connection?: FetchConnection): FetchRequestFacts {
  return new FetchRequestFacts(request, connection);
}
