import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type DoubleMode = "normal" | "http500" | "malformed" | "hang" | "http400";

export interface FacilitatorCall {
  endpoint: "verify" | "settle" | "supported";
  body: unknown;
  headers: IncomingMessage["headers"];
}

export interface FacilitatorDouble {
  url: string;
  calls: FacilitatorCall[];
  /** How the next answers behave; `verify`/`settle` decide the verdicts in normal mode. */
  mode: DoubleMode;
  /** A mode for one endpoint only, over `mode` (e.g. a facilitator whose /settle alone fails). */
  endpointModes: Partial<Record<FacilitatorCall["endpoint"], DoubleMode>>;
  /** The verdicts; other fields (`extensions`, `amount`…) go out as given. */
  verify: (body: unknown) => {
    isValid: boolean;
    invalidReason?: string;
    payer?: string;
    [field: string]: unknown;
  };
  settle: (body: unknown) => {
    success: boolean;
    transaction: string;
    network: string;
    errorReason?: string;
    payer?: string;
    [field: string]: unknown;
  };
  kinds: Array<{ x402Version: number; scheme: string; network: string }>;
  /** Extra headers on every answer (e.g. `EXTENSION-RESPONSES`). */
  replyHeaders: Record<string, string>;
  count(endpoint: FacilitatorCall["endpoint"]): number;
  close(): Promise<void>;
}

/**
 * A facilitator test double: a real HTTP server on 127.0.0.1:0 speaking the facilitator API,
 * whose verdicts and faults each test sets. It records every call.
 */
export async function startFacilitatorDouble(): Promise<FacilitatorDouble> {
  const hanging = new Set<() => void>();
  const double: FacilitatorDouble = {
    url: "",
    calls: [],
    mode: "normal",
    endpointModes: {},
    verify: () => ({ isValid: true, payer: "0x00000000000000000000000000000000000000aa" }),
    settle: () => ({ success: true, transaction: `0x${"ab".repeat(32)}`, network: "eip155:84532" }),
    kinds: [
      { x402Version: 2, scheme: "exact", network: "eip155:84532" },
      { x402Version: 2, scheme: "exact", network: "eip155:8453" },
    ],
    replyHeaders: {},
    count: (endpoint) => double.calls.filter((call) => call.endpoint === endpoint).length,
    close: async () => {
      hanging.forEach((finish) => finish());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const endpoint = (req.url ?? "").replace(/^\//, "") as FacilitatorCall["endpoint"];
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as unknown) : undefined;
    double.calls.push({ endpoint, body, headers: req.headers });
    const send = (status: number, payload: string) => {
      res.writeHead(status, { "content-type": "application/json", ...double.replyHeaders });
      res.end(payload);
    };
    switch (double.endpointModes[endpoint] ?? double.mode) {
      case "hang":
        hanging.add(() => res.destroy());
        return;
      case "http500":
        return send(500, '{"error":"boom"}');
      case "http400":
        return send(400, '{"error":"bad request"}');
      case "malformed":
        return send(200, '{"isValid":"yes"');
    }
    if (endpoint === "verify") return send(200, JSON.stringify(double.verify(body)));
    if (endpoint === "settle") return send(200, JSON.stringify(double.settle(body)));
    if (endpoint === "supported")
      return send(200, JSON.stringify({ kinds: double.kinds, extensions: [], signers: {} }));
    send(404, "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return double;
}
