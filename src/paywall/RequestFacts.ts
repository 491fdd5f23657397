import type { IncomingHttpHeaders, IncomingMessage } from "node:http";

/**
 * What the payment flow reads of a request, whatever the framework: an adapter builds one per request.
 * `method`, `url` and `headers` write through to the framework's request, because the flow rewrites
 * them (the priced path, a CBOR paid retry served as GET, the CBOR payment's content headers dropped).
 */
export interface RequestFacts {
  method: string;
  /** The request target below the mount point, as routed (`/path?query`, or absolute form). */
  url: string;
  readonly headers: IncomingHttpHeaders;
  /** Whether the client reached us over TLS (a framework may trust a proxy's `X-Forwarded-Proto`). */
  readonly secure: boolean;
  readonly protocol: "http" | "https";
  /** The client's address (a framework may take it from a trusted proxy's `X-Forwarded-For`). */
  readonly clientAddress: string;
  /** Where the flow is mounted (`""` at the root), prefixed to the resource URL an offer names. */
  readonly mountPath: string;
  /** The Node request underneath: its socket, and what user hooks such as `requireTls` are given. */
  readonly raw: IncomingMessage;
}
