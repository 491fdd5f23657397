/** A header value as a response carries it. */
export type HeaderValue = number | string | readonly string[];

/** Headers written whole, by name (what Node's `writeHead` takes). */
export type WrittenHeaders = Record<string, number | string | string[]>;

/** Response headers by name, as a held response keeps them. */
export type ResponseHeaders = Record<string, HeaderValue | undefined>;

/**
 * The part of a response the flow writes its own answers to: status, headers, body. Node's
 * `ServerResponse` is one as it is (the gateway's own answers use it directly).
 */
export interface ResponseWriter {
  statusCode: number;
  getHeader(name: string): HeaderValue | undefined;
  setHeader(name: string, value: HeaderValue): unknown;
  /** Whether the answer has started to leave (nothing can be changed then). */
  readonly headersSent: boolean;
  /**
   * Set the status and these headers at once (over any set earlier of the same name, as `setHeader`); nothing
   * can be set after it. Node's `writeHead`.
   */
  writeHead(status: number, headers: WrittenHeaders): unknown;
  /** Send the answer: the status, the headers set so far, and `body`. */
  end(body?: string | Uint8Array): unknown;
  /** The request answered, when the writer knows it: an error is answered in the format it asked for. */
  readonly req?: { readonly headers: Readonly<Record<string, string | string[] | undefined>> } | undefined;
}

export type HoldOutcome =
  { kind: "ended"; status: number; bytes: number } | { kind: "overflow"; bytes: number } | { kind: "closed" };

/** What a handler answered, kept to be sent later on another response (a retry). */
export interface HeldSnapshot {
  status: number;
  headers: ResponseHeaders;
  body: Uint8Array;
}

/** A handler's answer held in memory until settlement decides whether it is sent. */
export interface HeldResponse {
  /** Settles when the handler's answer is complete, is over the cap, or the client goes away. */
  readonly outcome: Promise<HoldOutcome>;
  /** Send what the handler answered (status, headers, body), plus any headers set since. */
  release(): void;
  /** Drop what the handler answered, body and headers, so the caller can answer instead. */
  discard(): void;
  /** A copy of what the handler answered (call before `discard`). */
  snapshot(): HeldSnapshot;
}

/**
 * What the payment flow answers on, whatever the runtime: an adapter builds one per request (Node's
 * `ServerResponse`, or a Fetch `Response` to be). The flow writes its own answers through the
 * {@link ResponseWriter} part, and holds the handler's answer with {@link ResponsePort.hold} until the
 * payment has settled.
 */
export interface ResponsePort extends ResponseWriter {
  /**
   * Hold everything the handler answers from now on, up to `maxBytes` of body, so that it can be sent or
   * dropped once settlement has decided. Call before handing the request on.
   */
  hold(maxBytes: number): HeldResponse;
  /** Whether the client hung up before its response was complete. */
  gone(): boolean;
  /**
   * What a metered (`upto`) handler reported it used through its framework rather than a header (Express:
   * `res.locals.x402Usage`), when the adapter has such a place.
   */
  reportedUsage?(): unknown;
}
