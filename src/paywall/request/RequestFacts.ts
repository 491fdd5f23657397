/** Request headers by lower-case name, as Node gives them (a repeated header may be a list; these never are). */
export interface RequestHeaders {
  [name: string]: string | string[] | undefined;
  accept?: string | undefined;
  "access-control-request-method"?: string | undefined;
  "content-length"?: string | undefined;
  "content-type"?: string | undefined;
  host?: string | undefined;
  "transfer-encoding"?: string | undefined;
  "user-agent"?: string | undefined;
}

/**
 * What the payment flow reads of a request, whatever the framework or runtime: an adapter builds one per
 * request. `method`, `url` and `headers` write through to what the adapter hands on, because the flow
 * rewrites them (the priced path, a CBOR paid retry served as GET, the CBOR payment's content headers dropped).
 */
export interface RequestFacts {
  method: string;
  /** The request target below the mount point, as routed (`/path?query`, or absolute form). */
  url: string;
  readonly headers: RequestHeaders;
  /** Whether the client reached us over TLS (a framework may trust a proxy's `X-Forwarded-Proto`). */
  readonly secure: boolean;
  readonly protocol: "http" | "https";
  /** The client's address (a framework may take it from a trusted proxy's `X-Forwarded-For`). */
  readonly clientAddress: string;
  /** Where the flow is mounted (`""` at the root), prefixed to the resource URL an offer names. */
  readonly mountPath: string;
  /** The address the request came in on (an offer's host when none is configured); `""` when unknown. */
  readonly localAddress: string;
  /** The port the request came in on; `""` when unknown. */
  readonly localPort: number | string;
  /** Whether the request's body has been read to its end already (settle-before must bound it first). */
  readonly bodyComplete: boolean;
  /** The body a body parser that ran before the paywall left (Express's `req.body`), for route functions. */
  readonly parsedBody: unknown;
  /**
   * Read the whole body (for a route's `requestBody` check) and keep it for whatever runs next: the handler,
   * a body parser or the upstream still get every byte. Throws `payload_too_large` past `maxBytes`;
   * `undefined` when something read the body before (then only `parsedBody` is left). Absent where an
   * adapter cannot give the body back.
   */
  readBody?(maxBytes: number): Promise<Uint8Array | undefined>;
  /** The framework's own request: what user hooks such as `requireTls` are given, and its parsed `body`. */
  readonly raw: object;
}
