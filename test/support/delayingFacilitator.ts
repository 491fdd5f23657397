import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface DelayingFacilitator {
  url: string;
  /** Wait this long before forwarding `/verify` (a slow facilitator). */
  verifyDelayMs: number;
  /** `forward`: settle on the real facilitator, answer after `settleDelayMs`. `drop`: never forward, never answer. */
  settleMode: "forward" | "drop";
  settleDelayMs: number;
  /** `/settle` calls the real facilitator answered. */
  settled: number;
  /** Resolves when the next `/verify` arrives (before its delay). */
  nextVerify(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A facilitator in front of a real one (the official facilitator of the local stack) that can be slow:
 * it delays `/verify`, and can settle for real but answer `/settle` only after the caller gave up.
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
    const answer = await fetch(`${realUrl}${path}`, {
      method: req.method,
      headers: { "content-type": "application/json" },
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const text = await answer.text();
    if (path === "/settle") {
      double.settled++;
      await sleep(double.settleDelayMs);
    }
    if (res.destroyed) return;
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return double;
}
