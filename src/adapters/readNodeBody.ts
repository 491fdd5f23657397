import type { IncomingMessage } from "node:http";
import { hasBody } from "../paywall/request/hasBody.js";
import { bodyTooLarge } from "../paywall/request/bodyTooLarge.js";

/**
 * Read a Node request's whole body and put it back at the front of the stream, so the handler, a body
 * parser or the proxy that reads it next gets every byte, then its end. Bytes are pulled with `read()`
 * (which also hands them to any `data` listener already there, e.g. the gateway's byte counter: those are
 * then detached, having seen each byte once). Rejects `payload_too_large` past `maxBytes`, the body left
 * half read (the caller answers and closes); `undefined` when the body was read before.
 */
export function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  // Read before (a body parser): nothing left to read. No body announced: nothing to wait for.
  if (req.readableEnded) return Promise.resolve(undefined);
  if (!hasBody(req.headers)) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off("readable", pull);
      req.off("error", fail);
      req.off("close", closed);
    };
    const fail = (error: Error): void => {
      stop();
      reject(error);
    };
    const closed = (): void => {
      if (!req.complete) fail(new Error("the client closed the request before its body was complete"));
    };
    function pull(): void {
      let chunk: Buffer | null;
      while ((chunk = req.read() as Buffer | null) !== null) {
        size += chunk.length;
        if (size > maxBytes) return fail(bodyTooLarge(maxBytes));
        chunks.push(chunk);
      }
      if (!req.complete) return;
      // Everything arrived and was read; its end is not emitted yet (the stream's buffer is refilled at once).
      stop();
      for (const listener of req.listeners("data")) req.off("data", listener as (chunk: Buffer) => void);
      const body = Buffer.concat(chunks, size);
      if (body.length > 0) req.unshift(body);
      resolve(body);
    }
    req.on("readable", pull);
    req.on("error", fail);
    req.on("close", closed);
  });
}
