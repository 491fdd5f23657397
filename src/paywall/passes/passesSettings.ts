import { z } from "zod/v4";

/** Defaults of the pass settings, written once. */
export const PASSES_DEFAULTS = {
  cookieName: "x402-pass",
  /** A pass counted in requests only lasts this long (30 days). */
  maxSeconds: 30 * 86_400,
} as const;

/** How the gateway signs the passes routes sell (`routes.*.pass`); one of `secret` or `ed25519PrivateKey`. */
export const passesSettingsSchema = z
  .strictObject({
    /** HMAC-SHA256 secret, at least 32 characters; every gateway that shares passes shares it. */
    secret: z.string().min(32, "expected at least 32 characters").optional().meta({
      description: "HMAC-SHA256 secret, at least 32 characters; every gateway that shares passes shares it.",
    }),
    /** Ed25519 private key (64 hex digits), instead of `secret`. */
    ed25519PrivateKey: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "expected 64 hex digits")
      .optional()
      .meta({ description: "Ed25519 private key (64 hex digits), instead of `secret`." }),
    /** Name of the cookie browsers get the pass in. Default `x402-pass`. */
    cookieName: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "expected letters, digits, - and _")
      .default(PASSES_DEFAULTS.cookieName)
      .meta({ description: "Name of the cookie browsers get the pass in. Default `x402-pass`." }),
    /** How long a pass counted in requests only lasts, in seconds. Default 30 days. */
    maxSeconds: z
      .number()
      .int()
      .positive()
      .default(PASSES_DEFAULTS.maxSeconds)
      .meta({ description: "How long a pass counted in requests only lasts, in seconds. Default 30 days." }),
  })
  .refine((passes) => (passes.secret === undefined) !== (passes.ed25519PrivateKey === undefined), {
    error: "set one of `secret` or `ed25519PrivateKey`",
  });

export type PassesSettings = z.output<typeof passesSettingsSchema>;
