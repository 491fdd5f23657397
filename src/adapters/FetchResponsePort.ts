import type {
  HeaderValue,
  HeldResponse,
  HeldSnapshot,
  HoldOutcome,
  ResponseHeaders,
  ResponsePort,
  WrittenHeaders,
} from "../paywall/responses/ResponsePort.js";
import type { RequestHeaders } from "../paywall/request/RequestFacts.js";
import { concatBytes } from "../common/bytes.js";

/** Status of the answer when the client went away before one was decided (nobody reads it). */
const CLIENT_GONE = 499;

/**
 * The flow's response port for a Fetch handler: the flow's own answer and the handler's held answer are
 * gathered here and become one `Response` ({@link FetchResponsePort.answer}). A handler's answer that is
 * held is read to its end (up to the cap) before anything of it leaves, so no streamed byte goes out
 * before settlement.
 */
export class FetchResponsePort implements ResponsePort {
  statusCode = 200;
  /** Set headers by lower-case name, with the name as written. */
  headers = new Map<string, { name: string; value: HeaderValue }>();
  private body: string | Uint8Array | undefined;
  private ended = false;
  private handler: Promise<Response> | undefined;
  private holding: FetchHold | undefined;

  constructor(
    private readonly request: Request,
    readonly req: { readonly headers: RequestHeaders },
  ) {}

  get headersSent(): boolean {
    return this.ended;
  }
  getHeader(name: string): HeaderValue | undefined {
    return this.headers.get(name.toLowerCase())?.value;
  }
  setHeader(name: string, value: HeaderValue): void {
    this.headers.set(name.toLowerCase(), { name, value });
  }
  writeHead(status: number, headers: WrittenHeaders): void {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
  }
  end(body?: string | Uint8Array): void {
    if (this.ended) return;
    this.ended = true;
    this.body = body;
  }
  gone(): boolean {
    return this.request.signal.aborted;
  }
  hold(maxBytes: number): HeldResponse {
    this.holding = new FetchHold(this, this.request.signal, maxBytes);
    return this.holding;
  }

  /** The handler's answer to the request handed on: held when a hold is on, else passed on once the flow is done. */
  handOn(response: Promise<Response>): void {
    if (this.holding !== undefined) this.holding.read(response);
    else this.handler = response;
  }

  /** The one `Response` for the request, once the flow is done with it. */
  answer(): Response | Promise<Response> {
    if (this.ended) {
      const body = this.body === undefined || this.request.method === "HEAD" ? null : this.body;
      return new Response(body as ConstructorParameters<typeof Response>[0], {
        status: this.statusCode,
        headers: this.headerInit(),
      });
    }
    if (this.handler !== undefined && this.holding === undefined)
      return this.handler.then((response) => this.passOn(response));
    // A held answer the flow neither sent nor dropped: the client went away, and gets nothing.
    return new Response(null, { status: CLIENT_GONE });
  }

  /** The handler's own answer, with what the flow set before handing on (a settle-before receipt) under its headers. */
  private passOn(response: Response): Response {
    if (this.headers.size === 0) return response;
    const headers = new Headers(this.headerList());
    copyHeaders(response.headers, (name, value, first) =>
      first ? headers.set(name, value) : headers.append(name, value),
    );
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }

  /**
   * The headers as a plain record when no name repeats (the usual answer): a runtime may then write them as
   * they are (`@hono/node-server` does, where a list costs it a `Headers` to build); else as a list.
   */
  private headerInit(): Record<string, string> | Array<[string, string]> {
    const record: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const { name, value } of this.headers.values()) {
      if (typeof value === "object") {
        if (value.length !== 1) return this.headerList();
        record[name] = value[0] as string;
      } else record[name] = String(value);
    }
    return record;
  }

  private headerList(): Array<[string, string]> {
    const list: Array<[string, string]> = [];
    for (const { name, value } of this.headers.values()) {
      if (typeof value === "object") for (const item of value) list.push([name, item]);
      else list.push([name, String(value)]);
    }
    return list;
  }
}

/** Each header of `headers`, `Set-Cookie` one by one (`first` tells the first value of a name). */
function copyHeaders(headers: Headers, set: (name: string, value: string, first: boolean) => void): void {
  headers.forEach((value, name) => {
    if (name !== "set-cookie") set(name, value, true);
  });
  headers.getSetCookie().forEach((cookie, index) => set("set-cookie", cookie, index === 0));
}

/** A handler's `Response` held: read to its end, up to the cap, and its status and headers put on the port. */
class FetchHold implements HeldResponse {
  readonly outcome: Promise<HoldOutcome>;
  private settle!: (outcome: HoldOutcome) => void;
  private chunks: Uint8Array[] = [];
  private bytes = 0;
  private status = 200;
  private done = false;
  private readonly headersBefore: FetchResponsePort["headers"];

  constructor(
    private readonly port: FetchResponsePort,
    private readonly signal: AbortSignal,
    private readonly maxBytes: number,
  ) {
    this.outcome = new Promise<HoldOutcome>((resolve) => (this.settle = resolve));
    this.headersBefore = new Map(port.headers);
  }

  read(pending: Promise<Response>): void {
    void this.readAll(pending);
  }

  private async readAll(pending: Promise<Response>): Promise<void> {
    const onAbort = () => this.settle({ kind: "closed" });
    if (this.signal.aborted) return onAbort();
    this.signal.addEventListener("abort", onAbort, { once: true });
    try {
      let response: Response;
      try {
        response = await pending;
      } catch {
        // A handler that throws answers 500, as a Node framework's error handler would: passed on, not settled.
        response = new Response(null, { status: 500 });
      }
      this.status = response.status;
      const reader = response.body?.getReader();
      if (reader !== undefined) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          this.bytes += value.byteLength;
          if (this.bytes > this.maxBytes) {
            this.chunks = [];
            void reader.cancel().catch(() => undefined);
            return this.settle({ kind: "overflow", bytes: this.bytes });
          }
          this.chunks.push(value);
        }
      }
      if (this.signal.aborted) return;
      this.port.statusCode = response.status;
      copyHeaders(response.headers, (name, value, first) => {
        const current = this.port.getHeader(name);
        if (first || current === undefined) this.port.setHeader(name, value);
        else this.port.setHeader(name, [...(Array.isArray(current) ? current : [String(current)]), value]);
      });
      this.settle({ kind: "ended", status: response.status, bytes: this.bytes });
    } catch {
      // The body broke off midway: like a client gone, nothing of it can be delivered or settled for.
      this.settle({ kind: "closed" });
    } finally {
      this.signal.removeEventListener("abort", onAbort);
    }
  }

  release(): void {
    if (this.done) return;
    this.done = true;
    this.port.end(concatBytes(this.chunks));
    this.chunks = [];
  }

  discard(): void {
    if (this.done) return;
    this.done = true;
    this.chunks = [];
    this.port.headers = new Map(this.headersBefore);
    this.port.statusCode = 200;
  }

  snapshot(): HeldSnapshot {
    const headers: ResponseHeaders = {};
    for (const [key, { name, value }] of this.port.headers) {
      if (!this.headersBefore.has(key)) headers[name] = value;
    }
    return { status: this.status, headers, body: concatBytes(this.chunks) };
  }
}
