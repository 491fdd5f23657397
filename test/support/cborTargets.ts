import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { loadPlugins } from "../../src/config/loadPlugins.js";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { x402, x402Node, type X402Options } from "../../src/index.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { sendJson } from "./paywallAdapters.js";
import { bridgedListener } from "./fetchBridge.js";

/** A paywall in front of a resource, as `x402()`, `x402Node()` or the gateway: the CBOR suites run on all three. */
export interface CborTarget {
  url: string;
  /** Requests the resource handler (or upstream) saw on `path`. */
  served(path: string): number;
  /** Headers and body size the handler saw on its last request to `path`. */
  lastSeen(path: string): { method: string; contentType: string | undefined; bodyBytes: number } | undefined;
  /** Answer the requests held on `/release`. */
  release(): void;
  stop(): Promise<void>;
}

/** What the middleware and the gateway are both given (the config's paywall keys). */
export type CborTargetSettings = Pick<
  X402Options,
  | "facilitator"
  | "cbor"
  | "payTo"
  | "network"
  | "assets"
  | "routes"
  | "rpcUrls"
  | "settlementCheckTimeoutMs"
  | "passes"
>;

export type CborTargetKind =
  "x402()" | "x402Node()" | "x402-gateway serve" | "x402Fetch()" | "x402Hono()" | "x402Fastify";
export const CBOR_TARGET_KINDS: CborTargetKind[] = [
  "x402()",
  "x402Node()",
  "x402-gateway serve",
  "x402Fetch()",
  "x402Hono()",
  "x402Fastify",
];

/**
 * `plugin`: a hooks module (absolute path): the middleware is given its exports as `hooks`, the gateway
 * names it in `plugins:` and loads it as `serve` does.
 */
export async function startCborTarget(
  kind: CborTargetKind,
  settings: CborTargetSettings,
  now: () => number,
  plugin?: string,
): Promise<CborTarget> {
  if (kind === "x402-gateway serve") return viaGateway(settings, now, plugin);
  const hooks = plugin === undefined ? undefined : (await loadPlugins([plugin])).hooks;
  return viaMiddleware(kind, hooks ? { ...settings, hooks } : settings, now);
}

async function viaMiddleware(
  adapter: Exclude<CborTargetKind, "x402-gateway serve">,
  settings: CborTargetSettings & Pick<X402Options, "hooks">,
  now: () => number,
): Promise<CborTarget> {
  const seen: Array<{ path: string; method: string; contentType: string | undefined; bodyBytes: number }> =
    [];
  const held: ServerResponse[] = [];
  const options = { ...settings, now };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const method = req.method ?? "GET";
    let bodyBytes = 0;
    req.on("data", (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on("end", () => {
      seen.push({ path, method, contentType: req.headers["content-type"], bodyBytes });
      if (path === "/release") return void held.push(res);
      sendJson(res, path === "/500" ? 500 : 200, { path, method });
    });
  };
  const app =
    adapter === "x402()"
      ? express().use(x402(options)).use(handler)
      : adapter === "x402Node()"
        ? x402Node(options).wrap(handler)
        : bridgedListener(adapter, options, handler);
  // Room for an oversized payment header, so that the paywall (not Node) answers 431.
  const server: Server = createServer({ maxHeaderSize: 256 * 1024 }, app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served: (path) => seen.filter((entry) => entry.path === path).length,
    lastSeen: (path) => seen.filter((entry) => entry.path === path).at(-1),
    release: () => held.splice(0).forEach((res) => sendJson(res, 200, { released: true })),
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function viaGateway(
  settings: CborTargetSettings,
  now: () => number,
  plugin: string | undefined,
): Promise<CborTarget> {
  const upstream: TestUpstream & { release(): void } = await startUpstream();
  const config = gatewayConfigSchema.parse({
    listen: { host: "127.0.0.1", port: 0 },
    ...settings,
    upstreams: [{ url: upstream.url }],
    logging: { level: "silent" },
    plugins: plugin === undefined ? [] : [plugin],
  });
  const { hooks, problems } = await loadPlugins(config.plugins);
  if (problems.length > 0) throw new Error(problems.map((problem) => problem.message).join("; "));
  const gateway: RunningGateway = await createGateway(config, {
    paywallOverrides: { now, ...(hooks ? { hooks } : {}) },
  }).listen();
  const onPath = (path: string) => upstream.seen.filter((entry) => entry.url.split("?")[0] === path);
  return {
    url: gateway.url,
    served: (path) => onPath(path).length,
    lastSeen: (path) => {
      const last = onPath(path).at(-1);
      return (
        last && { method: last.method, contentType: last.headers["content-type"], bodyBytes: last.bodyBytes }
      );
    },
    release: () => upstream.release(),
    stop: async () => {
      await gateway.close();
      await upstream.stop();
    },
  };
}
