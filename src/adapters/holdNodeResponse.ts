import { ServerResponse, type OutgoingHttpHeaders } from "node:http";
import type { HeldResponse, HeldSnapshot, HoldOutcome } from "../paywall/responses/ResponsePort.js";

type Callback = (error?: Error | null) => void;

/**
 * Hold everything a handler writes to `res` (status, headers, `writeHead`, streamed writes) in memory,
 * up to `maxBytes`, so that it can be sent or dropped once settlement has decided. Past the cap the
 * held bytes are dropped at once and the rest of the handler's writes are swallowed.
 */
export function holdNodeResponse(res: ServerResponse, maxBytes: number): HeldResponse {
  return new Hold(res, maxBytes);
}

type HeldMethod = "writeHead" | "write" | "end" | "flushHeaders";
type Methods = Pick<ServerResponse, HeldMethod>;

/**
 * The hold on a response being held (or once held: a wrapper may have captured its methods), kept on the
 * response under a symbol: a WeakMap entry per paid request cost its set, its lookups, and the collector's
 * ephemeron pass.
 */
const HOLD = Symbol("x402.hold");
type Holdable = ServerResponse & { [HOLD]?: Hold };
const holdOf = (res: ServerResponse): Hold | undefined => (res as Holdable)[HOLD];

/**
 * What a held response does with its writes: keep them (`hold`), drop them (`swallow`, after a discard,
 * while the handler may still write), or pass them to the response's own methods (`pass`: released,
 * or our own answer after a discard).
 */
type Mode = "hold" | "swallow" | "pass";

/**
 * One hold: the response's `writeHead`, `write`, `end` and `flushHeaders` are swapped for the module's
 * holding functions (one set for every response, each finding its hold under {@link HOLD}), so holding a
 * response builds one object rather than a closure per method.
 */
class Hold implements HeldResponse {
  readonly outcome: Promise<HoldOutcome>;
  mode: Mode = "hold";
  /** After a discard while the handler may still write: once our own answer has ended, swallow. */
  swallowAfterEnd = false;
  /** The response's methods before the hold, called when the hold passes a write on. */
  readonly original: Methods;
  private settle!: (outcome: HoldOutcome) => void;
  private chunks: Buffer[] = [];
  private bytes = 0;
  private state: "holding" | "overflow" | "ended" | "done" = "holding";
  private endCallbacks: Callback[] | undefined;
  /** `getHeaders()` already returns a fresh (shallow) copy. */
  private readonly headersBefore: OutgoingHttpHeaders;
  private readonly onClose = (): void => {
    if (this.state === "holding") this.settle({ kind: "closed" });
  };

  constructor(
    private readonly res: ServerResponse,
    private readonly maxBytes: number,
  ) {
    this.outcome = new Promise<HoldOutcome>((resolve) => (this.settle = resolve));
    this.original = {
      writeHead: res.writeHead,
      write: res.write,
      end: res.end,
      flushHeaders: res.flushHeaders,
    };
    this.headersBefore = res.getHeaders();
    (res as Holdable)[HOLD] = this;
    res.writeHead = holdWriteHead as ServerResponse["writeHead"];
    res.write = holdWrite as ServerResponse["write"];
    res.end = holdEnd as ServerResponse["end"];
    res.flushHeaders = holdFlushHeaders;
    res.on("close", this.onClose);
  }

  capture(chunk: unknown, encoding: unknown): void {
    if (chunk === undefined || chunk === null || this.state !== "holding") return;
    // A string is encoded into a buffer of its own; a buffer is copied, since its writer may reuse it.
    const buffer =
      typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : Buffer.from(
            (chunk as Uint8Array).buffer,
            (chunk as Uint8Array).byteOffset,
            (chunk as Uint8Array).byteLength,
          );
    this.bytes += buffer.length;
    if (this.bytes > this.maxBytes) {
      this.state = "overflow";
      this.chunks = [];
      this.settle({ kind: "overflow", bytes: this.bytes });
      return;
    }
    this.chunks.push(typeof chunk === "string" ? buffer : Buffer.from(buffer));
  }

  ended(callback: unknown): void {
    if (typeof callback === "function") (this.endCallbacks ??= []).push(callback as Callback);
    if (this.state === "holding") {
      this.state = "ended";
      this.settle({ kind: "ended", status: this.res.statusCode, bytes: this.bytes });
    }
  }

  snapshot(): HeldSnapshot {
    const headers = { ...this.res.getHeaders() };
    for (const name of Object.keys(this.headersBefore)) delete headers[name];
    return { status: this.res.statusCode, headers, body: Buffer.concat(this.chunks) };
  }

  release(): void {
    if (this.state === "done") return;
    this.state = "done";
    this.restore();
    const { chunks, endCallbacks, res } = this;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    this.chunks = [];
    this.endCallbacks = undefined;
    if (endCallbacks === undefined) res.end(body);
    else res.end(body, () => endCallbacks.forEach((callback) => callback()));
  }

  discard(): void {
    if (this.state === "done") return;
    // Keep swallowing: the handler may still be writing after an overflow.
    const swallowing = this.state === "overflow" || this.state === "holding";
    this.state = "done";
    this.chunks = [];
    if (swallowing) {
      this.res.off("close", this.onClose);
      // Our own answer goes through the real methods, up to its end(); later writes from the handler are dropped.
      this.mode = "pass";
      this.swallowAfterEnd = true;
    } else this.restore();
    resetHeaders(this.res, this.headersBefore);
    this.res.statusMessage = "";
  }

  private restore(): void {
    const { res } = this;
    this.mode = "pass";
    res.writeHead = this.original.writeHead;
    res.write = this.original.write;
    res.end = this.original.end;
    res.flushHeaders = this.original.flushHeaders;
    res.off("close", this.onClose);
  }
}

/** The hold on `res` when its writes are held or dropped; `undefined` when they pass on (see {@link passOn}). */
function activeHold(res: ServerResponse): Hold | undefined {
  const hold = holdOf(res);
  return hold === undefined || hold.mode === "pass" ? undefined : hold;
}

/** Call the response's own method, as it was before the hold. */
function passOn<M extends HeldMethod>(res: ServerResponse, name: M, args: unknown[]): ReturnType<Methods[M]> {
  const hold = holdOf(res);
  const method = (hold?.original[name] ?? ServerResponse.prototype[name]) as (...a: unknown[]) => unknown;
  return method.apply(res, args) as ReturnType<Methods[M]>;
}

function holdWriteHead(this: ServerResponse, ...args: unknown[]): ServerResponse {
  const hold = activeHold(this);
  if (hold === undefined) return passOn(this, "writeHead", args);
  if (hold.mode === "swallow") return this;
  const [status, first, second] = args;
  this.statusCode = status as number;
  if (typeof first === "string") this.statusMessage = first;
  const headers = (typeof first === "string" ? second : first) as OutgoingHttpHeaders | string[] | undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2)
      this.setHeader(headers[i] as string, headers[i + 1] as string);
  } else if (headers) {
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value);
  }
  return this;
}

function holdWrite(this: ServerResponse, ...args: unknown[]): boolean {
  const hold = activeHold(this);
  if (hold === undefined) return passOn(this, "write", args);
  const [chunk, encoding, callback] = args;
  if (hold.mode === "hold") hold.capture(chunk, encoding);
  const done = (typeof encoding === "function" ? encoding : callback) as Callback | undefined;
  if (done) process.nextTick(done);
  return true;
}

function holdEnd(this: ServerResponse, ...args: unknown[]): ServerResponse {
  const hold = holdOf(this);
  if (hold?.swallowAfterEnd && hold.mode === "pass") {
    // Our own answer after a discard: Node's end() calls this.writeHead() itself, so swallow only afterwards.
    const result = passOn(this, "end", args);
    hold.mode = "swallow";
    return result;
  }
  if (hold === undefined || hold.mode === "pass") return passOn(this, "end", args);
  let [chunk, encoding, callback] = args;
  if (typeof chunk === "function") [chunk, callback] = [undefined, chunk];
  else if (typeof encoding === "function") [encoding, callback] = [undefined, encoding];
  if (hold.mode === "hold") {
    hold.capture(chunk, encoding);
    hold.ended(callback);
  } else if (typeof callback === "function") hold.ended(callback);
  return this;
}

function holdFlushHeaders(this: ServerResponse): void {
  if (activeHold(this) === undefined) passOn(this, "flushHeaders", []);
}

function resetHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
}
