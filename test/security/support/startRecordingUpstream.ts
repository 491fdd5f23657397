import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** One request as a strict HTTP/1.1 server reads it off the wire: its head, and the body its framing gives it. */
export interface ReceivedRequest {
  head: string;
  requestLine: string;
  body: Buffer;
}

export interface RecordingUpstream {
  url: string;
  /** Every request read so far, on any connection, in order. */
  requests(): ReceivedRequest[];
  /** Every byte received, per connection (what a lenient upstream could read otherwise). */
  bytes(): string;
  stop(): Promise<void>;
}

/**
 * A raw `net` upstream on 127.0.0.1:0 that reads requests exactly as framed (Content-Length, chunked, or
 * no body), records each, and answers each with `200 {"n":<index>}`: bytes a proxy forwards unframed
 * are read as further requests, as a real upstream would.
 */
export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const received: ReceivedRequest[] = [];
  const raw: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      raw.push(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const read = readRequest(pending);
        if (read === undefined) return;
        pending = pending.subarray(read.consumed);
        received.push(read.request);
        const body = JSON.stringify({ n: received.length });
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => [...received],
    bytes: () => Buffer.concat(raw).toString("latin1"),
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The first complete request in `buffer`, or `undefined` while it is incomplete. */
function readRequest(buffer: Buffer): { request: ReceivedRequest; consumed: number } | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end === -1) return undefined;
  const head = buffer.subarray(0, end).toString("latin1");
  const requestLine = head.split("\r\n")[0] ?? "";
  const header = (name: string) =>
    head
      .split("\r\n")
      .slice(1)
      .find((line) => line.toLowerCase().startsWith(`${name}:`))
      ?.slice(name.length + 1)
      .trim();
  const start = end + 4;
  if (/chunked/i.test(header("transfer-encoding") ?? "")) {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const line = buffer.indexOf("\r\n", at);
      if (line === -1) return undefined;
      const size = parseInt(buffer.subarray(at, line).toString("latin1"), 16);
      if (Number.isNaN(size)) throw new Error("bad chunk size");
      if (size === 0) {
        // No trailers: the blank line follows at once; else the trailers end with one.
        const trailerEnd = buffer.indexOf("\r\n\r\n", line);
        if (trailerEnd === -1) return undefined;
        const consumed = trailerEnd + 4;
        return { request: { head, requestLine, body: Buffer.concat(parts) }, consumed };
      }
      if (buffer.length < line + 2 + size + 2) return undefined;
      parts.push(buffer.subarray(line + 2, line + 2 + size));
      at = line + 2 + size + 2;
    }
  }
  const length = Number(header("content-length") ?? "0");
  if (buffer.length < start + length) return undefined;
  return {
    request: { head, requestLine, body: buffer.subarray(start, start + length) },
    consumed: start + length,
  };
}
