import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FacilitatorEndpoint = "verify" | "settle" | "supported";

/**
 * What the proxy does with a call: pass it on (`forward`, optionally after `delayMs`), or fail without
 * passing it on (`hang`, `http500`, `garbage`, `cut` = close the socket unanswered), or pass it on and
 * then close the socket before answering (`forward-then-cut`: the work is done, the caller never hears),
 * or answer a well-formed refusal without passing it on (`refuse`: `isValid: false` / `success: false`).
 */
export type ProxyMode =
  "forward" | "hang" | "http500" | "garbage" | "cut" | "forward-then-cut" | "refuse" | { delayMs: number };

export interface FacilitatorProxy {
  url: string;
  /** Mode per endpoint; unset endpoints forward. */
  modes: Partial<Record<FacilitatorEndpoint, ProxyMode>>;
  /** Calls received and calls passed on to the real facilitator, per endpoint. */
  received: Record<FacilitatorEndpoint, number>;
  forwarded: Record<FacilitatorEndpoint, number>;
  /** Stops listening (connections refused, as when the facilitator is killed); `start()` listens again on the same port. */
  kill(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A controllable facilitator in front of a real one (`target`), on 127.0.0.1: for fault injection. */
export async function startFacilitatorProxy(target: string): Promise<FacilitatorProxy> {
  const base = target.replace(/\/+$/, "");
  const zero = () => ({ verify: 0, settle: 0, supported: 0 });
  const hanging = new Set<ServerResponse>();
  let port = 0;
  let server: Server | undefined;

  const proxy: FacilitatorProxy = {
    url: "",
    modes: {},
    received: zero(),
    forwarded: zero(),
    kill: async () => {
      const running = server;
      server = undefined;
      if (!running) return;
      for (const res of hanging) res.destroy();
      hanging.clear();
      running.closeAllConnections();
      await new Promise((resolve) => running.close(resolve));
    },
    start: () => listen(),
    close: () => proxy.kill(),
  };

  async function forward(endpoint: FacilitatorEndpoint, req: IncomingMessage, body: Buffer) {
    proxy.forwarded[endpoint]++;
    const response = await fetch(`${base}/${endpoint}`, {
      method: req.method,
      headers: { "content-type": "application/json" },
      body: req.method === "POST" ? body : undefined,
    });
    return { status: response.status, text: await response.text() };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const endpoint = (req.url ?? "").replace(/^\/+|\/+$/g, "") as FacilitatorEndpoint;
    if (!(endpoint in proxy.received)) return void res.writeHead(404).end();
    proxy.received[endpoint]++;
    const mode = proxy.modes[endpoint] ?? "forward";
    if (mode === "hang") return void hanging.add(res);
    if (mode === "cut") return void req.socket.destroy();
    if (mode === "http500") return void res.writeHead(500, { "content-type": "text/plain" }).end("boom");
    if (mode === "garbage") {
      return void res.writeHead(200, { "content-type": "application/json" }).end('{"isValid": tru');
    }
    if (mode === "refuse") {
      const network = (JSON.parse(body.toString() || "{}") as { paymentRequirements?: { network?: string } })
        .paymentRequirements?.network;
      const reason = "insufficient_funds";
      const refusal =
        endpoint === "verify"
          ? { isValid: false, invalidReason: reason }
          : { success: false, errorReason: reason, transaction: "", network };
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(refusal));
    }
    if (typeof mode === "object") await new Promise((resolve) => setTimeout(resolve, mode.delayMs));
    const answer = await forward(endpoint, req, body);
    if (mode === "forward-then-cut") return void req.socket.destroy();
    if (res.destroyed) return;
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text);
  }

  async function listen(): Promise<void> {
    if (server) return;
    const created = createServer((req, res) => {
      handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      created.once("error", reject);
      created.listen(port, "127.0.0.1", () => resolve());
    });
    server = created;
    port = (created.address() as AddressInfo).port;
    proxy.url = `http://127.0.0.1:${port}`;
  }

  await listen();
  return proxy;
}
