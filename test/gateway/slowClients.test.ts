import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "./support/gatewayConfig.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

let upstream: TestUpstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  const limits = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300, maxConnections: 3 };
  gateway = await createGateway(gatewayConfig({ upstreamUrl: upstream.url, limits })).listen();
});

afterAll(async () => {
  await gateway.close();
  await upstream.stop();
});

/** A raw connection to the gateway, and what the server sent until it closed it. */
async function open(): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(received)));
  socket.on("error", () => undefined);
  return { socket, closed };
}

describe("gateway: slow and idle clients (issue 15, item 14)", () => {
  it("closes a connection whose request head never ends (headersTimeoutMs) with 408", async () => {
    const { socket, closed } = await open();
    socket.write("GET /free HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a connection whose body never ends (requestTimeoutMs) with 408, nothing answered by the upstream", async () => {
    const before = upstream.seen.filter((seen) => seen.complete).length;
    const { socket, closed } = await open();
    socket.write("POST /free HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
    expect(upstream.seen.filter((seen) => seen.complete).length).toBe(before);
  });

  it("closes an idle keep-alive connection after keepAliveTimeoutMs", async () => {
    const { socket, closed } = await open();
    socket.write("GET /free HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await closed).toMatch(/^HTTP\/1\.1 200/);
  });

  it("accepts no more than maxConnections at once: the next one is closed unanswered", async () => {
    const held = await Promise.all([open(), open(), open()]);
    const extra = await open();
    extra.socket.write("GET /free HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await extra.closed).toBe("");
    for (const { socket } of held) socket.destroy();
  });
});
