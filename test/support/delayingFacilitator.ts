import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface DelayingFacilitator {
  url: string;
  /** Wait this long before forwarding `/verify` (a slow facilitator). */
  verifyDelayMs: number;
  /**
   * `forward`: settle on the real facilitator, answer after `settleDelayMs`. `drop`: never forward, never
   * answer. `cut`: settle on the real facilitator, then cut the connection instead of answering.
   */
  settleMode: "forward" | "drop" | "cut";
  settleDelayMs: number;
  /** Never answer a CBOR facilitator's settlement status call (`GET /settlements/…`). */
  dropStatus: boolean;
  /** Rewrites the real facilitator's reply body before it is passed on (a facilitator that answers wrong). */
  rewrite: ((path: string, reply: Buffer) => Buffer) | undefined;
  /** `/settle` calls the real facilitator answered. */
  settled: number;
  /** Resolves when the next `/verify` arrives (before its delay). */
  nextVerify(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A facilitator in front of a real one (the official facilitator of the local stack, or the local CBOR
 * facilitator: bodies and content types pass through as they are) that can be slow or cut: it delays
 * `/verify`, and can settle for real but answer `/settle` only after the caller gave up, or never.
 */
export async function startDelayingFacilitator(realUrl: string): Promise<DelayingFacilitator> {
  const waiters: Array<() => void> = [];
  const timers = new Set<NodeJS.Timeout>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  const double: DelayingFacilitator = {
    url: "",
    verifyDelayMs: 0,
    settleMode: "forward",
    settleDelayMs: 0,
    dropStatus: false,
    rewrite: undefined,
    settled: 0,
    nextVerify: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {
      timers.forEach((timer) => clearTimeout(timer));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    if (path === "/verify") {
      waiters.splice(0).forEach((wake) => wake());
      await sleep(double.verifyDelayMs);
    }
    if (path === "/settle" && double.settleMode === "drop") return;
    if (path.startsWith("/settlements/") && double.dropStatus) return;
    const contentType = req.headers["content-type"] ?? "application/json";
    const answer = await fetch(`${realUrl}${path}`, {
      method: req.method,
      headers: { "content-type": contentType, accept: req.headers.accept ?? "*/*" },
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const real = Buffer.from(await answer.arrayBuffer());
    const reply = double.rewrite ? double.rewrite(path, real) : real;
    if (path === "/settle") {
      double.settled++;
      if (double.settleMode === "cut") return void res.socket?.destroy();
      await sleep(double.settleDelayMs);
    }
    if (res.destroyed) return;
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? contentType });
    res.end(reply);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return double;
}
