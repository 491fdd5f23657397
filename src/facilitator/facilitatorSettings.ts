import { z } from "zod/v4";
import { outboundUrl } from "../common/outboundUrl.js";

/** Timeouts of the facilitator calls, written once (docs/config-reference.md: verify 10 s, settle 30 s). */
export const FACILITATOR_DEFAULTS = {
  verifyTimeoutMs: 10_000,
  settleTimeoutMs: 30_000,
  supportedTimeoutMs: 5_000,
} as const;

const headersFunction = z.custom<FacilitatorHeaders>((value) => typeof value === "function", {
  error: "expected a function returning headers",
});
/** `settlements`: the CBOR settlement status read (`GET /settlements/<intent digest>`). */
export type FacilitatorHeaders = (
  endpoint: "verify" | "settle" | "supported" | "settlements",
) => Record<string, string> | Promise<Record<string, string>>;

export const facilitatorSettingsSchema = z.strictObject({
  /**
   * Base URL of the x402 facilitator (`https://`; `http://` on loopback only); `/verify`, `/settle` and
   * `/supported` are appended.
   */
  url: outboundUrl("the facilitator's base URL").meta({
    description:
      "Base URL of the x402 facilitator (`https://`; `http://` on loopback only); `/verify`, `/settle` and `/supported` are appended.",
  }),
  /** Timeout of `/verify`, in ms. */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .default(FACILITATOR_DEFAULTS.verifyTimeoutMs)
    .meta({ description: "Timeout of `/verify`, in ms." }),
  /** Timeout of `/settle`, in ms. */
  settleTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(FACILITATOR_DEFAULTS.settleTimeoutMs)
    .meta({ description: "Timeout of `/settle`, in ms." }),
  /** Timeout of `/supported`, in ms. */
  supportedTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(FACILITATOR_DEFAULTS.supportedTimeoutMs)
    .meta({ description: "Timeout of `/supported`, in ms." }),
  /** Extra headers (e.g. auth) on every call: a fixed map, or a function of the endpoint. */
  headers: z
    .union([z.record(z.string(), z.string()), headersFunction])
    .optional()
    .meta({
      description: "Extra headers (e.g. auth) on every call: a fixed map, or a function of the endpoint.",
    }),
});
export type FacilitatorSettings = z.infer<typeof facilitatorSettingsSchema>;
