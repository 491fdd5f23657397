import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpFacilitator } from "../../src/facilitator/HttpFacilitator.js";
import { nodeHttpTransport } from "../../src/facilitator/nodeHttpTransport.js";
import { GatewayError } from "../../src/protocol/errors.js";
import { evmPayment, usdcRequirements } from "../support/payments.js";

/**
 * The default transport (Node's http on a keep-alive agent) must fail exactly as `fetch` does: the same
 * facilitator misbehaviour, through both, gives the same code and reason (fetch is the oracle).
 */
type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

const settle = { isValid: true, success: true, transaction: `0x${"ab".repeat(32)}`, network: "eip155:84532" };
const behaviours: Record<string, Behaviour> = {
  ok: (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(settle)),
  hang: () => {},
  http500: (_req, res) => res.writeHead(500, { "retry-after": "7" }).end("boom"),
  http503NoRetryAfter: (_req, res) => res.writeHead(503).end(),
  http400: (_req, res) => res.writeHead(400, { "content-type": "application/json" }).end("{}"),
  garbage: (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"isValid": tru'),
  cut: (req) => req.socket.destroy(),
  cutMidReply: (req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
    res.write('{"isValid":');
    setTimeout(() => req.socket.destroy(), 20);
  },
  declaredTooLarge: (_req, res) =>
    res.writeHead(200, { "content-length": String(2 * 1024 * 1024) }).write("x".repeat(1024)),
  redirect: (_req, res) => res.writeHead(307, { location: "http://127.0.0.1:9/settle" }).end(),
  // 100 KiB chunks, unbounded: cut off past the 1 MiB limit.
  endless: (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    const chunk = "x".repeat(100 * 1024);
    const push = () => {
      while (res.write(chunk));
      res.once("drain", push);
    };
    push();
  },
};

let server: Server;
let base = "";
let closedBase = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => behaviours[(req.url ?? "").split("/")[1] ?? ""]?.(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  closedBase = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Outcome {
  ok?: boolean;
  code?: string;
  details?: Record<string, unknown>;
  retryAfterSeconds?: number | undefined;
}

/** The three ways a call can go: the default (an undici pool on Node), Node's http agent, `fetch` (the oracle). */
type Way = "default" | "node-http" | "fetch";

async function outcome(url: string, how: Way, call: "verify" | "settle"): Promise<Outcome> {
  // Only a facilitator that stops sending is decided by the timeout; every other outcome must be the
  // server's doing through both transports however loaded the machine (a cut after 20 ms, the size cap).
  const timeoutMs = /\/(hang|declaredTooLarge)$/.test(url) ? 300 : 20_000;
  const facilitator = new HttpFacilitator({
    url,
    timeoutMs,
    settleTimeoutMs: timeoutMs,
    ...(how === "fetch" ? { fetch: globalThis.fetch } : {}),
    ...(how === "node-http" ? { transport: nodeHttpTransport(url) } : {}),
  });
  return outcomeOf(facilitator, call);
}

async function outcomeOf(facilitator: HttpFacilitator, call: "verify" | "settle"): Promise<Outcome> {
  const requirements = usdcRequirements("1000");
  try {
    const answer = await facilitator[call](evmPayment(requirements), requirements);
    return { ok: "success" in answer ? answer.success : answer.isValid };
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const { code, details, retryAfterSeconds } = error as GatewayError;
    const { issues: _issues, ...rest } = details as Record<string, unknown>;
    return { code, details: rest, retryAfterSeconds };
  }
}

describe("HttpFacilitator's default transport fails as fetch does", () => {
  it.each(Object.keys(behaviours).flatMap((name) => [`verify ${name}`, `settle ${name}`]))(
    "%s",
    async (name) => {
      const [call, behaviour] = name.split(" ") as ["verify" | "settle", string];
      const url = `${base}/${behaviour}`;
      const viaFetch = await outcome(url, "fetch", call);
      expect(await outcome(url, "default", call)).toEqual(viaFetch);
      expect(await outcome(url, "node-http", call)).toEqual(viaFetch);
    },
  );

  it.each(["verify", "settle"] as const)(
    "%s against a closed port: unreachable through both",
    async (call) => {
      const viaNode = await outcome(closedBase, "default", call);
      expect(viaNode).toEqual(await outcome(closedBase, "fetch", call));
      expect(await outcome(closedBase, "node-http", call)).toEqual(viaNode);
      expect(viaNode.details).toMatchObject({ reason: "unreachable" });
    },
  );

  const nodeWays = ["default", "node-http"] as const;
  const facilitatorVia = (how: (typeof nodeWays)[number], url: string) =>
    new HttpFacilitator({ url, ...(how === "node-http" ? { transport: nodeHttpTransport(url) } : {}) });

  it.each(nodeWays)("%s: keeps its connection to the facilitator alive between calls", async (how) => {
    const sockets = new Set<unknown>();
    const counting = (req: IncomingMessage) => sockets.add(req.socket);
    server.on("request", counting);
    try {
      const facilitator = facilitatorVia(how, `${base}/ok`);
      const requirements = usdcRequirements("1000");
      for (let i = 0; i < 5; i++) await facilitator.verify(evmPayment(requirements), requirements);
      expect(sockets.size).toBe(1);
    } finally {
      server.off("request", counting);
    }
  });

  it.each(nodeWays)(
    "%s: a facilitator stopped while its connection is idle is unreachable for /settle, not a settlement cut",
    async (how) => {
      const own = createServer(behaviours.ok as Behaviour);
      await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
      const facilitator = facilitatorVia(how, url);
      const requirements = usdcRequirements("1000");
      expect(await facilitator.verify(evmPayment(requirements), requirements)).toMatchObject({
        isValid: true,
      });
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20)); // its FIN on the way, as from another process
      expect(await outcomeOf(facilitator, "settle")).toMatchObject({
        code: "facilitator_unavailable",
        details: { endpoint: "settle", reason: "unreachable" },
      });
    },
  );

  it("on Node, the default sends through undici (its request lines name `host` in lower case; node:http writes `Host`)", async () => {
    const names: string[][] = [];
    const recording = (req: IncomingMessage) => names.push(req.rawHeaders.filter((_, i) => i % 2 === 0));
    server.on("request", recording);
    try {
      const requirements = usdcRequirements("1000");
      for (const how of nodeWays)
        await facilitatorVia(how, `${base}/ok`).verify(evmPayment(requirements), requirements);
      expect(names[0]).toContain("host");
      expect(names[1]).toContain("Host");
    } finally {
      server.off("request", recording);
    }
  });

  it.each([
    ["credentials in the URL only", undefined],
    ["credentials in the URL and an Authorization header given", "Bearer given"],
  ])("%s: both Node transports send the same Authorization", async (_name, given) => {
    const seen: Array<string | undefined> = [];
    const recording = (req: IncomingMessage) => seen.push(req.headers.authorization);
    server.on("request", recording);
    try {
      const url = `${base.replace("http://", "http://us%40er:p%3Ass@")}/ok`;
      const requirements = usdcRequirements("1000");
      for (const how of nodeWays)
        await new HttpFacilitator({
          url,
          ...(given ? { headers: { Authorization: given } } : {}),
          ...(how === "node-http" ? { transport: nodeHttpTransport(url) } : {}),
        }).verify(evmPayment(requirements), requirements);
      expect(seen).toHaveLength(2);
      expect(seen[0]).toBe(seen[1]);
      expect(seen[0]).toBe(given ?? `Basic ${Buffer.from("us@er:p:ss").toString("base64")}`);
    } finally {
      server.off("request", recording);
    }
  });

  it("sends { x402Version: 2, paymentPayload, paymentRequirements } as JSON on every call, requirements serialised once", async () => {
    const bodies: string[] = [];
    const own = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        bodies.push(Buffer.concat(chunks).toString("utf8"));
        (behaviours.ok as Behaviour)(req, res);
      });
    });
    await new Promise<void>((resolve) => own.listen(0, "127.0.0.1", resolve));
    try {
      const facilitator = new HttpFacilitator({
        url: `http://127.0.0.1:${(own.address() as AddressInfo).port}`,
      });
      const requirements = usdcRequirements("1000");
      const payments = [evmPayment(requirements), evmPayment(requirements)];
      await facilitator.verify(payments[0]!, requirements);
      await facilitator.settle(payments[1]!, requirements);
      expect(bodies.map((body) => JSON.parse(body) as unknown)).toEqual([
        { x402Version: 2, paymentPayload: payments[0], paymentRequirements: requirements },
        { x402Version: 2, paymentPayload: payments[1], paymentRequirements: requirements },
      ]);
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });
});
