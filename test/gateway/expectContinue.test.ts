import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

let upstream: TestUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  // `POST /priced` is priced ($0.01); the facilitator is never reached by an unpaid request.
  gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url })).listen();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.stop();
});

/** A raw connection to the gateway: what it has answered so far, and a way to wait for more. */
function open(): {
  socket: Socket;
  received: () => string;
  next: () => Promise<string>;
  closed: Promise<string>;
} {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  let text = "";
  let waiting: ((text: string) => void) | undefined;
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
    waiting?.(text);
    waiting = undefined;
  });
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(text)));
  return {
    socket,
    received: () => text,
    next: () => new Promise((resolve) => (waiting = resolve)),
    closed,
  };
}

const head = (path: string) =>
  [`POST ${path} HTTP/1.1`, "Host: gateway", "Content-Length: 5", "Expect: 100-continue", "", ""].join(
    "\r\n",
  );

describe("Expect: 100-continue (issue 20, item 11)", () => {
  it("an unpaid priced request gets its 402 first, never a 100 Continue, and the connection closes", async () => {
    const before = upstream.seen.length;
    const connection = open();
    connection.socket.write(head("/priced"));
    const first = await connection.next();
    expect(first.startsWith("HTTP/1.1 402 ")).toBe(true);
    expect(first).not.toMatch(/100 Continue/);
    // The body the client held back is never read as a request: Node closes the connection.
    const all = await connection.closed;
    expect(all).not.toMatch(/100 Continue/);
    expect(upstream.seen.length).toBe(before);
  });

  it("a free request gets 100 Continue, then its body is forwarded and answered", async () => {
    const before = upstream.seen.length;
    const connection = open();
    connection.socket.write(head("/free"));
    const first = await connection.next();
    expect(first).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    const forwarded = upstream.nextRequest();
    connection.socket.write("hello");
    const seen = await forwarded;
    expect(seen).toMatchObject({ method: "POST", url: "/free", bodyBytes: 5, complete: true });
    expect(seen.headers.expect).toBeUndefined();
    while (!/HTTP\/1\.1 200 /.test(connection.received())) await connection.next();
    connection.socket.end();
    expect(upstream.seen.length).toBe(before + 1);
  });
});
