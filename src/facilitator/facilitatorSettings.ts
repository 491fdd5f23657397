import { z } from "zod/v4";
import { outboundUrl } from "../common/outboundUrl.js";
import { facilitatorAuthSchema } from "./facilitatorAuth.js";

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
  /** Auth minted at each call, over `headers`: `{ bearerFromEnv: NAME }` → `Authorization: Bearer <$NAME>`. */
  auth: facilitatorAuthSchema.optional().meta({
    description:
      "Auth minted at each call, over `headers`: `{ bearerFromEnv: NAME }` → `Authorization: Bearer <$NAME>`.",
  }),
});
export type FacilitatorSettings = z.infer<typeof facilitatorSettingsSchema>;

/** A CAIP-2 network, or `namespace:*` for all of a namespace's networks. */
const networkPattern = z
  .string()
  .regex(
    /^[-a-z0-9]{3,8}:(\*|[-_a-zA-Z0-9]{1,32})$/,
    "expected a CAIP-2 network such as eip155:8453, or eip155:*",
  );

/** What routes a payment to one facilitator of several: the networks and schemes it serves. */
export const facilitatorRoutingShape = {
  /** The networks this facilitator serves (`eip155:8453`, or `eip155:*`); every one when absent. */
  networks: z.array(networkPattern).min(1).optional().meta({
    description:
      "The networks this facilitator serves (CAIP-2 such as `eip155:8453`, or `eip155:*`); every one when absent.",
  }),
  /** The schemes this facilitator serves (`exact`…); every one when absent. */
  schemes: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .meta({ description: "The schemes this facilitator serves (`exact`…); every one when absent." }),
};

/** One facilitator of a list: its settings and what it serves. */
export const routedFacilitatorSettingsSchema = facilitatorSettingsSchema.extend(facilitatorRoutingShape);
export type RoutedFacilitatorSettings = z.infer<typeof routedFacilitatorSettingsSchema>;

/** Several facilitators, tried in order among those serving a payment's network and scheme. */
export const facilitatorListSchema = z.array(routedFacilitatorSettingsSchema).min(1);
