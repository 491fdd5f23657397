import { isIP } from "node:net";
import { z } from "zod/v4";
import { isHttpsOrLoopbackUrl } from "../common/isHttpsOrLoopbackUrl.js";
import { OUTBOUND_URL_MESSAGE } from "../common/outboundUrl.js";
import { MAX_CBOR_PAYMENT_HEADER_CHARS } from "../protocol/cbor/profile.js";
import { tlsSettingsSchema } from "./tlsSettingsSchema.js";

// The sections of the gateway's config file, each with its defaults; gatewayConfigSchema.ts puts them together.

/** Defaults of the gateway's own keys, written once (the paywall's live in `src/paywall/page/paywallSettingsSchema.ts`). */
export const GATEWAY_DEFAULTS = {
  host: "127.0.0.1",
  port: 8402,
  upstreamConnectTimeoutMs: 10_000,
  upstreamTimeoutMs: 60_000,
  upstreamMaxSockets: 256,
  upstreamMaxFreeSockets: 256,
  maxBodyBytes: 1024 * 1024,
  /** Node's `maxHeaderSize`: room for the largest CBOR payment header (64 KiB of CBOR, base64) plus 16 KiB of ordinary headers. */
  maxHeaderBytes: MAX_CBOR_PAYMENT_HEADER_CHARS + 16 * 1024,
  drainTimeoutMs: 30_000,
  /** nginx-like client limits: a slow or idle client cannot hold a connection for long. */
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
  logLevel: "info",
  metricsPath: "/metrics",
  /** The metrics listener's: loopback, so only this machine (its Prometheus agent) can read them. */
  metricsHost: "127.0.0.1",
  metricsPort: 9402,
  adminPath: "/_x402/admin",
} as const;

/** One `trustProxy` entry: an IP, a CIDR, or loopback/linklocal/uniquelocal. */
export const trustProxyEntrySchema = z.string().refine(
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

export const listenSettingsSchema = z.strictObject({
  /**
   * Interface to bind; off loopback, plain HTTP needs `tls`, a `trustProxy` or `allowPlainHttp` (else refused
   * at start-up).
   */
  host: z.string().min(1).default(GATEWAY_DEFAULTS.host).meta({
    description:
      "Interface to bind; off loopback, plain HTTP needs `tls`, a `trustProxy` or `allowPlainHttp` (else refused at start-up).",
  }),
  /** TCP port; 0 picks a free one. */
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(GATEWAY_DEFAULTS.port)
    .meta({ description: "TCP port; 0 picks a free one." }),
  /** With it the gateway speaks HTTPS. */
  tls: tlsSettingsSchema.optional().meta({ description: "With it the gateway speaks HTTPS." }),
  /**
   * Serve priced routes over plain HTTP on a non-loopback `host` without `tls` or a `trustProxy` (a private
   * network). Default false: such a listener is refused at start-up.
   */
  allowPlainHttp: z.boolean().default(false).meta({
    description:
      "Serve priced routes over plain HTTP on a non-loopback `host` without `tls` or a `trustProxy` (a private network). Default false: such a listener is refused at start-up.",
  }),
});

export const upstreamSettingsSchema = z
  .strictObject({
    /** Requests whose normalised path starts with this prefix (segment-wise) go to `url`. */
    prefix: z
      .string()
      .regex(/^\/[^?#]*$/, 'expected a path prefix starting with "/"')
      .default("/")
      .meta({
        description:
          "Path prefix this upstream serves (`/` for everything else); the longest matching prefix wins.",
      }),
    /**
     * Base URL of the upstream; the request's path is appended to it. `https://`, or `http://` on loopback or
     * with `allowPlainHttp`.
     */
    url: z
      .url({ protocol: /^https?$/, error: "expected the upstream's base URL (https://, or http://)" })
      .meta({
        description:
          "Base URL of the upstream; the request's path is appended to it. `https://`, or `http://` on loopback or with `allowPlainHttp`.",
      }),
    /**
     * Reach this upstream over plain `http://` off loopback: the gateway terminates TLS and the hop to the
     * backend stays inside a private network (a Kubernetes Service, a VPC). Default false: refused.
     */
    allowPlainHttp: z.boolean().default(false).meta({
      description:
        "Reach this upstream over plain `http://` off loopback: the gateway terminates TLS and the hop to the backend stays inside a private network (a Kubernetes Service, a VPC). Default false: refused.",
    }),
    /** How long to wait for the TCP (and TLS) connection to the upstream, in ms → 504 upstream_timeout. */
    connectTimeoutMs: z.number().int().positive().default(GATEWAY_DEFAULTS.upstreamConnectTimeoutMs).meta({
      description:
        "How long to wait for the TCP (and TLS) connection to the upstream, in ms → 504 upstream_timeout.",
    }),
    /** How long the upstream may stay silent (no response bytes), in ms → 504 upstream_timeout. */
    timeoutMs: z.number().int().positive().default(GATEWAY_DEFAULTS.upstreamTimeoutMs).meta({
      description: "How long the upstream may stay silent (no response bytes), in ms → 504 upstream_timeout.",
    }),
    /** Most connections open to this upstream at once; further requests wait for a free one. */
    maxSockets: z.number().int().positive().default(GATEWAY_DEFAULTS.upstreamMaxSockets).meta({
      description: "Most connections open to this upstream at once; further requests wait for a free one.",
    }),
    /** Most idle keep-alive connections kept open to this upstream for reuse. */
    maxFreeSockets: z
      .number()
      .int()
      .nonnegative()
      .default(GATEWAY_DEFAULTS.upstreamMaxFreeSockets)
      .meta({ description: "Most idle keep-alive connections kept open to this upstream for reuse." }),
    /**
     * Path of the upstream's OpenAPI 3.x document (`/openapi.json`), read at start-up for routes with
     * `requestBody: { openApi: true }`: their bodies are checked against the operation's schema.
     */
    openApiPath: z.string().startsWith("/").optional().meta({
      description:
        "Path of the upstream's OpenAPI 3.x document (`/openapi.json`), read at start-up for routes with `requestBody: { openApi: true }`: their bodies are checked against the operation's schema.",
    }),
    /** Path `/readyz` fetches (expects 2xx); without it, any HTTP answer from `url` counts as reachable. */
    healthPath: z.string().startsWith("/").optional().meta({
      description:
        "Path `/readyz` fetches (expects 2xx); without it, any HTTP answer from `url` counts as reachable.",
    }),
  })
  // The outbound rule of every URL the gateway calls, with this upstream's explicit opt-in.
  .refine((upstream) => upstream.allowPlainHttp || isHttpsOrLoopbackUrl(upstream.url), {
    path: ["url"],
    error: `${OUTBOUND_URL_MESSAGE}; for a backend inside a private network, set allowPlainHttp: true on this upstream`,
  });
export type UpstreamSettings = z.output<typeof upstreamSettingsSchema>;

export const limitsSettingsSchema = z
  .strictObject({
    /** Largest request body forwarded, in bytes → 413 payload_too_large. */
    maxBodyBytes: z
      .number()
      .int()
      .positive()
      .default(GATEWAY_DEFAULTS.maxBodyBytes)
      .meta({ description: "Largest request body forwarded, in bytes → 413 payload_too_large." }),
    /** Largest request head (all headers), in bytes → 431. */
    maxHeaderBytes: z
      .number()
      .int()
      .positive()
      .default(GATEWAY_DEFAULTS.maxHeaderBytes)
      .meta({ description: "Largest request head (all headers), in bytes → 431." }),
    /**
     * On SIGTERM/SIGINT, how long in-flight requests and settlements may take before connections are cut, in
     * ms.
     */
    drainTimeoutMs: z.number().int().nonnegative().default(GATEWAY_DEFAULTS.drainTimeoutMs).meta({
      description:
        "On SIGTERM/SIGINT, how long in-flight requests and settlements may take before connections are cut, in ms.",
    }),
    /** How long a client may take to send the request head, in ms → 408 and the connection closed. */
    headersTimeoutMs: z.number().int().positive().default(GATEWAY_DEFAULTS.headersTimeoutMs).meta({
      description:
        "How long a client may take to send the request head, in ms → 408 and the connection closed.",
    }),
    /** How long a client may take to send the whole request (head and body), in ms → 408. */
    requestTimeoutMs: z.number().int().positive().default(GATEWAY_DEFAULTS.requestTimeoutMs).meta({
      description: "How long a client may take to send the whole request (head and body), in ms → 408.",
    }),
    /** How long an idle keep-alive connection stays open, in ms. */
    keepAliveTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(GATEWAY_DEFAULTS.keepAliveTimeoutMs)
      .meta({ description: "How long an idle keep-alive connection stays open, in ms." }),
    /** Open client connections at most; beyond, new connections are closed at once. */
    maxConnections: z
      .number()
      .int()
      .positive()
      .default(GATEWAY_DEFAULTS.maxConnections)
      .meta({ description: "Open client connections at most; beyond, new connections are closed at once." }),
  })
  .refine((limits) => limits.headersTimeoutMs <= limits.requestTimeoutMs, {
    path: ["headersTimeoutMs"],
    error: "headersTimeoutMs may not be larger than requestTimeoutMs",
  });

export const loggingSettingsSchema = z.strictObject({
  /** Log level: fatal, error, warn, info (default), debug, trace or silent. */
  level: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default(GATEWAY_DEFAULTS.logLevel)
    .meta({ description: "Log level: fatal, error, warn, info (default), debug, trace or silent." }),
});

/** The metrics listener: plain HTTP serving only `metrics.path`. */
export const metricsListenSchema = z.strictObject({
  /** Interface to bind. Default 127.0.0.1: metrics show revenue and process details, keep them private. */
  host: z.string().min(1).default(GATEWAY_DEFAULTS.metricsHost).meta({
    description:
      "Interface to bind. Default 127.0.0.1: metrics show revenue and process details, keep them private.",
  }),
  /** TCP port. Default 9402 (0, a free port, when `listen.port` is 0). */
  port: z
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .meta({ description: "TCP port. Default 9402 (0, a free port, when `listen.port` is 0)." }),
});
export type MetricsListenSettings = z.output<typeof metricsListenSchema>;

export const metricsSettingsSchema = z.strictObject({
  /** Serve Prometheus metrics at `metrics.path`. Default true. */
  enabled: z
    .boolean()
    .default(true)
    .meta({ description: "Serve Prometheus metrics at `metrics.path`. Default true." }),
  /** Path the metrics are served at, on the metrics listener (outside the priced table). */
  path: z.string().startsWith("/").default(GATEWAY_DEFAULTS.metricsPath).meta({
    description: "Path the metrics are served at, on the metrics listener (outside the priced table).",
  }),
  /**
   * A listener of their own, apart from the gateway's `listen`: `{ host, port }` (default
   * 127.0.0.1:9402), or `false` for none.
   */
  listen: z
    .union([z.literal(false), metricsListenSchema])
    .prefault({})
    .meta({
      description:
        "A listener of their own, apart from the gateway's `listen`: `{ host, port }` (default 127.0.0.1:9402), or `false` for none.",
    }),
  /**
   * Also serve `metrics.path` on the gateway's own listener, to requests with `Authorization: Bearer
   * <admin.token>` (needs `admin.token`). Default false: there the path is an ordinary upstream path.
   */
  onGatewayListener: z.boolean().default(false).meta({
    description:
      "Also serve `metrics.path` on the gateway's own listener, to requests with `Authorization: Bearer <admin.token>` (needs `admin.token`). Default false: there the path is an ordinary upstream path.",
  }),
});
export type MetricsSettings = z.output<typeof metricsSettingsSchema>;

/** The operator's endpoint (revocations): off unless enabled, and then only with a bearer token. */
export const adminSettingsSchema = z
  .strictObject({
    /**
     * Serve the admin endpoint (`POST {path}/revocations`). Default false: the path is then an ordinary
     * upstream path.
     */
    enabled: z.boolean().default(false).meta({
      description:
        "Serve the admin endpoint (`POST {path}/revocations`). Default false: the path is then an ordinary upstream path.",
    }),
    /** Where the admin endpoint lives; nothing under it is priced or forwarded upstream while enabled. */
    path: z
      .string()
      .regex(
        /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/,
        'expected a path such as "/_x402/admin": segments of letters, digits, . _ ~ -, no trailing /',
      )
      .default(GATEWAY_DEFAULTS.adminPath)
      .meta({
        description:
          "Where the admin endpoint lives; nothing under it is priced or forwarded upstream while enabled.",
      }),
    /**
     * Bearer token the admin endpoint requires (at least 32 characters; write `${X402_ADMIN_TOKEN}` rather
     * than the token itself). Required when enabled.
     */
    token: z.string().min(32, "expected at least 32 characters").optional().meta({
      description:
        "Bearer token the admin endpoint requires (at least 32 characters; write `${X402_ADMIN_TOKEN}` rather than the token itself). Required when enabled.",
    }),
  })
  .refine((admin) => !admin.enabled || admin.token !== undefined, {
    path: ["token"],
    error: "admin.enabled needs admin.token (at least 32 characters, e.g. ${X402_ADMIN_TOKEN})",
  });
export type AdminSettings = z.output<typeof adminSettingsSchema>;

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
    .default([])
    .meta({
      description:
        "Origins (`https://app.example.com`, or `*`) whose browsers may call the gateway; none by default.",
    }),
  /** How long a browser may cache a preflight answer, in seconds. */
  maxAgeSeconds: z
    .number()
    .int()
    .nonnegative()
    .default(600)
    .meta({ description: "How long a browser may cache a preflight answer, in seconds." }),
});
export type CorsSettings = z.output<typeof corsSettingsSchema>;
