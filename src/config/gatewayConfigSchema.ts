import { isIP } from "node:net";
import { z } from "zod/v4";
import {
  facilitatorSettingsSchema,
  ledgerSettingsSchema,
  paywallSettingsSchema,
} from "../middleware/options.js";
import { isHttpsOrLoopbackUrl } from "./isHttpsOrLoopbackUrl.js";

/** Defaults of the gateway's own keys, written once (the paywall's live in `middleware/options.ts`). */
export const GATEWAY_DEFAULTS = {
  host: "127.0.0.1",
  port: 8402,
  upstreamConnectTimeoutMs: 10_000,
  upstreamTimeoutMs: 60_000,
  maxBodyBytes: 1024 * 1024,
  /** Node's `maxHeaderSize`: room for CBOR payments (64 KiB) plus ordinary headers. */
  maxHeaderBytes: 64 * 1024,
  drainTimeoutMs: 30_000,
  logLevel: "info",
  metricsPath: "/metrics",
} as const;

const trustProxyEntry = z.string().refine(
  (value) => {
    if (["loopback", "linklocal", "uniquelocal"].includes(value)) return true;
    const [address, bits, ...rest] = value.split("/");
    if (rest.length > 0 || address === undefined || isIP(address) === 0) return false;
    if (bits === undefined) return true;
    const max = isIP(address) === 4 ? 32 : 128;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
  },
  { error: 'expected an IP address, a CIDR such as "10.0.0.0/8", or loopback/linklocal/uniquelocal' },
);

export const tlsSettingsSchema = z.strictObject({
  /** PEM certificate chain file. */
  certFile: z.string().min(1),
  /** PEM private key file. */
  keyFile: z.string().min(1),
});

export const listenSettingsSchema = z.strictObject({
  /** Interface to bind; plain HTTP is accepted without a trusted proxy only on a loopback host. */
  host: z.string().min(1).default(GATEWAY_DEFAULTS.host),
  /** TCP port; 0 picks a free one. */
  port: z.number().int().min(0).max(65535).default(GATEWAY_DEFAULTS.port),
  /** With it the gateway speaks HTTPS. */
  tls: tlsSettingsSchema.optional(),
});

export const upstreamSettingsSchema = z.strictObject({
  /** Requests whose normalised path starts with this prefix (segment-wise) go to `url`. */
  prefix: z
    .string()
    .regex(/^\/[^?#]*$/, 'expected a path prefix starting with "/"')
    .default("/"),
  /** Base URL of the upstream; the request's path is appended to it. */
  url: z.url({ error: "expected the upstream's base URL" }),
  /** How long to wait for the TCP (and TLS) connection to the upstream, in ms → 504 upstream_timeout. */
  connectTimeoutMs: z.number().int().positive().default(GATEWAY_DEFAULTS.upstreamConnectTimeoutMs),
  /** How long the upstream may stay silent (no response bytes), in ms → 504 upstream_timeout. */
  timeoutMs: z.number().int().positive().default(GATEWAY_DEFAULTS.upstreamTimeoutMs),
  /** Path `/readyz` fetches (expects 2xx); without it, any HTTP answer from `url` counts as reachable. */
  healthPath: z.string().startsWith("/").optional(),
});
export type UpstreamSettings = z.output<typeof upstreamSettingsSchema>;

export const limitsSettingsSchema = z.strictObject({
  /** Largest request body forwarded, in bytes → 413 payload_too_large. */
  maxBodyBytes: z.number().int().positive().default(GATEWAY_DEFAULTS.maxBodyBytes),
  /** Largest request head (all headers), in bytes → 431. */
  maxHeaderBytes: z.number().int().positive().default(GATEWAY_DEFAULTS.maxHeaderBytes),
  /** On SIGTERM/SIGINT, how long in-flight requests and settlements may take before connections are cut, in ms. */
  drainTimeoutMs: z.number().int().nonnegative().default(GATEWAY_DEFAULTS.drainTimeoutMs),
});

export const loggingSettingsSchema = z.strictObject({
  level: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default(GATEWAY_DEFAULTS.logLevel),
});

export const metricsSettingsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Path of the Prometheus text endpoint (outside the priced table). */
  path: z.string().startsWith("/").default(GATEWAY_DEFAULTS.metricsPath),
});

/** Cross-origin access for browser apps that pay (off unless `allowedOrigins` is set). */
export const corsSettingsSchema = z.strictObject({
  /** Origins allowed to call the gateway (`https://app.example.com`), or `["*"]` for any. Empty: CORS off. */
  allowedOrigins: z
    .array(
      z.union([
        z.literal("*"),
        z.url().regex(/^https?:\/\/[^/]+$/, "expected an origin: scheme://host[:port]"),
      ]),
    )
    .default([]),
  /** How long a browser may cache a preflight answer, in seconds. */
  maxAgeSeconds: z.number().int().nonnegative().default(600),
});
export type CorsSettings = z.output<typeof corsSettingsSchema>;

/** The standalone gateway's config file: the paywall's settings plus where to listen and what to proxy. */
export const gatewayConfigSchema = paywallSettingsSchema
  .omit({ requireTls: true })
  .extend({
    facilitator: facilitatorSettingsSchema.extend({
      /** Extra headers on every facilitator call, e.g. `Authorization: "Bearer ${FACILITATOR_TOKEN}"`. */
      headers: z.record(z.string(), z.string()).optional(),
    }),
    listen: listenSettingsSchema.prefault({}),
    /** Proxies whose `X-Forwarded-*` headers are believed: IPs, CIDRs, or loopback/linklocal/uniquelocal. */
    trustProxy: z.array(trustProxyEntry).default([]),
    upstreams: z.array(upstreamSettingsSchema).min(1, "expected at least one upstream"),
    /** Payment de-duplication store: in memory (one instance), or Redis shared by several instances. */
    ledger: ledgerSettingsSchema.prefault({ type: "memory" }),
    limits: limitsSettingsSchema.prefault({}),
    logging: loggingSettingsSchema.prefault({}),
    metrics: metricsSettingsSchema.prefault({}),
    cors: corsSettingsSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    const outbound: Array<{ path: PropertyKey[]; url: string }> = [
      { path: ["facilitator", "url"], url: config.facilitator.url },
      ...config.upstreams.map((upstream, index) => ({
        path: ["upstreams", index, "url"],
        url: upstream.url,
      })),
    ];
    for (const [network, url] of Object.entries(config.rpcUrls))
      outbound.push({ path: ["rpcUrls", network], url });
    if (config.cbor?.facilitator)
      outbound.push({ path: ["cbor", "facilitator", "url"], url: config.cbor.facilitator.url });
    const recognitionUrls = (
      path: PropertyKey[],
      settings: { rpcUrl: string; announceRpcUrl?: string | undefined },
    ) => {
      outbound.push({ path: [...path, "rpcUrl"], url: settings.rpcUrl });
      if (settings.announceRpcUrl !== undefined) {
        outbound.push({ path: [...path, "announceRpcUrl"], url: settings.announceRpcUrl });
      }
    };
    if (config.recognition) recognitionUrls(["recognition"], config.recognition);
    for (const [key, route] of Object.entries(config.routes)) {
      if (route.recognition) recognitionUrls(["routes", key, "recognition"], route.recognition);
    }
    for (const { path, url } of outbound) {
      if (!isHttpsOrLoopbackUrl(url)) {
        ctx.addIssue({
          code: "custom",
          path,
          message: "expected an https:// URL (plain http is allowed only on loopback)",
        });
      }
    }
    const prefixes = new Set<string>();
    config.upstreams.forEach((upstream, index) => {
      if (prefixes.has(upstream.prefix)) {
        ctx.addIssue({
          code: "custom",
          path: ["upstreams", index, "prefix"],
          message: `prefix "${upstream.prefix}" is listed twice`,
        });
      }
      prefixes.add(upstream.prefix);
    });
  });

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
