import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

export type HoldOutcome =
  { kind: "ended"; status: number; bytes: number } | { kind: "overflow"; bytes: number } | { kind: "closed" };

/** What a handler wrote, kept to be sent later on another response (a retry). */
export interface HeldSnapshot {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface HeldResponse {
  /** Settles when the handler ends its response, writes more than the cap, or the client goes away. */
  readonly outcome: Promise<HoldOutcome>;
  /** Send what the handler wrote (status, headers, body), plus any headers set since. */
  release(): void;
  /** Drop what the handler wrote, body and headers, so the caller can answer instead. */
  discard(): void;
  /** A copy of what the handler wrote so far (call before `discard`). */
  snapshot(): HeldSnapshot;
}

type Callback = (error?: Error | null) => void;

/**
 * Hold everything a handler writes to `res` (status, headers, `writeHead`, streamed writes) in memory,
 * up to `maxBytes`, so that it can be sent or dropped once settlement has decided. Past the cap the
 * held bytes are dropped at once and the rest of the handler's writes are swallowed.
 */
export function holdResponse(res: ServerResponse, maxBytes: number): HeldResponse {
  const original = {
    writeHead: res.writeHead,
    write: res.write,
    end: res.end,
    flushHeaders: res.flushHeaders,
  };
  const headersBefore = snapshotHeaders(res);
  let chunks: Buffer[] = [];
  let bytes = 0;
  let state: "holding" | "overflow" | "ended" | "done" = "holding";
  const endCallbacks: Callback[] = [];
  let settle!: (outcome: HoldOutcome) => void;
  const outcome = new Promise<HoldOutcome>((resolve) => (settle = resolve));

  const capture = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || state !== "holding") return;
    // A string is encoded into a buffer of its own; a buffer is copied, since its writer may reuse it.
    const buffer =
      typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : Buffer.from(
            (chunk as Uint8Array).buffer,
            (chunk as Uint8Array).byteOffset,
            (chunk as Uint8Array).byteLength,
          );
    bytes += buffer.length;
    if (bytes > maxBytes) {
      state = "overflow";
      chunks = [];
      settle({ kind: "overflow", bytes });
      return;
    }
    chunks.push(typeof chunk === "string" ? buffer : Buffer.from(buffer));
  };

  res.writeHead = function holdWriteHead(this: ServerResponse, status: number, ...rest: unknown[]) {
    res.statusCode = status;
    const [first, second] = rest;
    if (typeof first === "string") res.statusMessage = first;
    const headers = (typeof first === "string" ? second : first) as
      OutgoingHttpHeaders | string[] | undefined;
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2)
        res.setHeader(headers[i] as string, headers[i + 1] as string);
    } else if (headers) {
      for (const [name, value] of Object.entries(headers))
        if (value !== undefined) res.setHeader(name, value);
    }
    return res;
  } as ServerResponse["writeHead"];

  res.write = function holdWrite(chunk: unknown, encoding?: unknown, callback?: unknown) {
    capture(chunk, encoding);
    const done = (typeof encoding === "function" ? encoding : callback) as Callback | undefined;
    if (done) process.nextTick(done);
    return true;
  } as ServerResponse["write"];

  res.end = function holdEnd(chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (typeof chunk === "function") [chunk, callback] = [undefined, chunk];
    else if (typeof encoding === "function") [encoding, callback] = [undefined, encoding];
    capture(chunk, encoding);
    if (typeof callback === "function") endCallbacks.push(callback as Callback);
    if (state === "holding") {
      state = "ended";
      settle({ kind: "ended", status: res.statusCode, bytes });
    }
    return res;
  } as ServerResponse["end"];

  res.flushHeaders = () => {};

  const onClose = (): void => {
    if (state === "holding") settle({ kind: "closed" });
  };
  res.once("close", onClose);

  const restore = (): void => {
    res.writeHead = original.writeHead;
    res.write = original.write;
    res.end = original.end;
    res.flushHeaders = original.flushHeaders;
    res.off("close", onClose);
  };

  return {
    outcome,
    snapshot() {
      const headers = { ...res.getHeaders() };
      for (const name of Object.keys(headersBefore)) delete headers[name];
      return { status: res.statusCode, headers, body: Buffer.concat(chunks) };
    },
    release() {
      if (state === "done") return;
      state = "done";
      restore();
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      chunks = [];
      const callbacks = endCallbacks.splice(0);
      res.end(body, () => callbacks.forEach((callback) => callback()));
    },
    discard() {
      if (state === "done") return;
      // Keep swallowing: the handler may still be writing after an overflow.
      const swallowing = state === "overflow" || state === "holding";
      state = "done";
      chunks = [];
      if (!swallowing) restore();
      else {
        res.off("close", onClose);
        const silent = { writeHead: res.writeHead, write: res.write, end: res.end };
        // Our own answer goes through the real methods; later writes from the handler are dropped.
        res.writeHead = original.writeHead;
        res.write = original.write;
        res.end = function endOnce(this: ServerResponse, ...args: unknown[]) {
          // Node's end() calls this.writeHead() itself: swap the swallowing methods back only afterwards.
          const result = (original.end as (...a: unknown[]) => ServerResponse).apply(res, args);
          res.writeHead = silent.writeHead;
          res.write = silent.write;
          res.end = silent.end;
          return result;
        } as ServerResponse["end"];
      }
      resetHeaders(res, headersBefore);
      res.statusMessage = "";
    },
  };
}

/** `getHeaders()` already returns a fresh (shallow) copy. */
function snapshotHeaders(res: ServerResponse): OutgoingHttpHeaders {
  return res.getHeaders();
}

function resetHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) res.setHeader(name, value);
}
