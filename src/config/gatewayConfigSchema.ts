import { z } from "zod/v4";
import { facilitatorRoutingShape, facilitatorSettingsSchema } from "../facilitator/facilitatorSettings.js";
import { ledgerSettingsSchema } from "../ledger/ledgerSettings.js";
import { recorderSettingsSchema } from "../recognition/recorder/recorderSettings.js";
import { paywallSettingsSchema } from "../paywall/page/paywallSettingsSchema.js";
import { paywallSettingsIssues } from "../paywall/page/paywallSettingsIssues.js";
import {
  adminSettingsSchema,
  corsSettingsSchema,
  limitsSettingsSchema,
  listenSettingsSchema,
  loggingSettingsSchema,
  metricsSettingsSchema,
  trustProxyEntrySchema,
  upstreamSettingsSchema,
} from "./gatewaySectionSchemas.js";
import { metricsSettingsIssues } from "./metricsSettingsIssues.js";
import { plainHttpListenerProblem } from "./plainHttpListenerProblem.js";

/** A facilitator's settings in a file: `headers` a fixed map (a file holds no function). */
const fileFacilitatorSchema = facilitatorSettingsSchema.extend({
  /** Extra headers on every facilitator call, e.g. `Authorization: "Bearer ${FACILITATOR_TOKEN}"`. */
  headers: z.record(z.string(), z.string()).optional().meta({
    description:
      'Extra headers on every facilitator call, e.g. `Authorization: "Bearer ${FACILITATOR_TOKEN}"`.',
  }),
});

/** The standalone gateway's config file: the paywall's settings plus where to listen and what to proxy. */
export const gatewayConfigSchema = paywallSettingsSchema
  .omit({ requireTls: true })
  .extend({
    /**
     * The x402 facilitator that verifies and settles payments; or a list of them, each with the `networks`
     * and `schemes` it serves, tried in order (`/verify` and `/supported` fail over when one cannot
     * answer, `/settle` only when it could not be reached).
     */
    facilitator: z
      .union([fileFacilitatorSchema, z.array(fileFacilitatorSchema.extend(facilitatorRoutingShape)).min(1)])
      .meta({
        description:
          "The x402 facilitator that verifies and settles payments; or a list of them, each with the `networks` and `schemes` it serves, tried in order (`/verify` and `/supported` fail over when one cannot answer, `/settle` only when it could not be reached).",
      }),
    /**
     * At start-up the facilitator's `/supported` is read: `warn` logs each priced option it does not list
     * and starts anyway; `require` refuses to start until it lists them all.
     */
    facilitatorSupport: z.enum(["warn", "require"]).default("warn").meta({
      description:
        "At start-up the facilitator's `/supported` is read: `warn` logs each priced option it does not list and starts anyway; `require` refuses to start until it lists them all.",
    }),
    /** Where the gateway listens: `{ host, port, tls?, allowPlainHttp? }`. Default 127.0.0.1:8402. */
    listen: listenSettingsSchema.prefault({}).meta({
      description:
        "Where the gateway listens: `{ host, port, tls?, allowPlainHttp? }`. Default 127.0.0.1:8402.",
    }),
    /** Proxies whose `X-Forwarded-*` headers are believed: IPs, CIDRs, or loopback/linklocal/uniquelocal. */
    trustProxy: z.array(trustProxyEntrySchema).default([]).meta({
      description:
        "Proxies whose `X-Forwarded-*` headers are believed: IPs, CIDRs, or loopback/linklocal/uniquelocal.",
    }),
    /** The APIs behind the gateway, each serving a path prefix (longest prefix wins). */
    upstreams: z.array(upstreamSettingsSchema).min(1, "expected at least one upstream").meta({
      description: "The APIs behind the gateway, each serving a path prefix (longest prefix wins).",
    }),
    /** Payment de-duplication store: in memory (one instance), or Redis shared by several instances. */
    ledger: ledgerSettingsSchema.prefault({ type: "memory" }).meta({
      description:
        "Payment de-duplication store: in memory (one instance), or Redis shared by several instances.",
    }),
    /** Request size, timeouts, connections and drain: defaults in the nginx range. */
    limits: limitsSettingsSchema
      .prefault({})
      .meta({ description: "Request size, timeouts, connections and drain: defaults in the nginx range." }),
    /** Access and event logs (pino JSON on stdout). */
    logging: loggingSettingsSchema
      .prefault({})
      .meta({ description: "Access and event logs (pino JSON on stdout)." }),
    /** Prometheus metrics of the gateway: on a listener of their own (127.0.0.1:9402 by default). */
    metrics: metricsSettingsSchema.prefault({}).meta({
      description:
        "Prometheus metrics of the gateway: on a listener of their own (127.0.0.1:9402 by default).",
    }),
    /**
     * Authenticated operator endpoint, off by default: `POST {path}/revocations` revokes a refunded payer's
     * recognition.
     */
    admin: adminSettingsSchema.prefault({}).meta({
      description:
        "Authenticated operator endpoint, off by default: `POST {path}/revocations` revokes a refunded payer's recognition.",
    }),
    /**
     * The payer recorder, off by default: writes each paying payer to its recognized route's registry
     * contract (`record_payer(payer)`) from an account of yours, through a durable queue.
     */
    recorder: recorderSettingsSchema.optional().meta({
      description:
        "The payer recorder, off by default: writes each paying payer to its recognized route's registry contract (`record_payer(payer)`) from an account of yours, through a durable queue. See docs/recognition.md.",
    }),
    /**
     * JavaScript modules (paths relative to this file) loaded at start-up whose exports are payment hooks
     * (`onProtectedRequest`, `onBeforeVerify`, … as `hooks` in code, docs/hooks.md); run in the order listed.
     */
    plugins: z.array(z.string().min(1)).default([]).meta({
      description:
        "JavaScript modules (paths relative to this file) loaded at start-up whose exports are payment hooks (`onProtectedRequest`, `onBeforeVerify`, … as `hooks` in code, docs/hooks.md); run in the order listed.",
    }),
    /**
     * Cross-origin access for browser apps that pay: preflights answered, payment headers allowed and
     * exposed.
     */
    cors: corsSettingsSchema.prefault({}).meta({
      description:
        "Cross-origin access for browser apps that pay: preflights answered, payment headers allowed and exposed.",
    }),
  })
  .superRefine((config, ctx) => {
    paywallSettingsIssues(config, ctx);
    const plainHttp = plainHttpListenerProblem(config);
    if (plainHttp !== undefined)
      ctx.addIssue({ code: "custom", path: ["listen", "host"], message: plainHttp });
    if (config.admin.enabled) {
      const admin = config.admin.path.toLowerCase();
      const under = (path: string) =>
        path.toLowerCase() === admin || path.toLowerCase().startsWith(`${admin}/`);
      for (const key of Object.keys(config.routes)) {
        const path = key.trim().split(/\s+/).pop() ?? "";
        if (under(path)) {
          ctx.addIssue({
            code: "custom",
            path: ["routes", key],
            message: `the route is under admin.path (${config.admin.path}), which is never priced nor forwarded`,
          });
        }
      }
      const metricsHere = config.metrics.enabled && config.metrics.onGatewayListener;
      for (const reserved of ["/healthz", "/readyz", ...(metricsHere ? [config.metrics.path] : [])]) {
        if (under(reserved) || admin.startsWith(`${reserved.toLowerCase()}/`)) {
          ctx.addIssue({
            code: "custom",
            path: ["admin", "path"],
            message: `admin.path may not overlap ${reserved}`,
          });
        }
      }
    }
    for (const issue of metricsSettingsIssues(config)) ctx.addIssue({ code: "custom", ...issue });
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
