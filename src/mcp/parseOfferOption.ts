import type { PaymentRequirements } from "@x402/core/types";
import { isAddress } from "viem";
import { z } from "zod/v4";

const UINT256_MAX = 2n ** 256n - 1n;
const DIGITS = /^(0|[1-9][0-9]{0,77})$/;

const address = z
  .string()
  .max(42)
  .refine((value) => isAddress(value, { strict: false }), "is not an address (0x + 40 hex digits)");

/**
 * One `accepts` entry the payer can sign: scheme `exact` (or `exact-pq`, the same EIP-3009 authorization)
 * on an EVM network, every field of the type the protocol gives it (a JSON array is not a string, even if
 * its only item is digits).
 */
const offerOptionSchema = z
  .object({
    scheme: z.enum(["exact", "exact-pq"], { error: "is not exact or exact-pq" }),
    network: z.string().regex(/^eip155:[1-9][0-9]{0,31}$/, "is not an EVM network (eip155:<chain id>)"),
    amount: z.string({ error: "is not a string" }).check((ctx) => {
      // One check, not regex then refine: zod runs every check, and BigInt throws on non-digits.
      if (!DIGITS.test(ctx.value))
        ctx.issues.push({ code: "custom", message: "is not a whole number in digits", input: ctx.value });
      else if (BigInt(ctx.value) > UINT256_MAX)
        ctx.issues.push({ code: "custom", message: "is above 2^256 - 1", input: ctx.value });
    }),
    asset: address,
    payTo: address,
    maxTimeoutSeconds: z.number().int("is not a whole number").positive("is not positive"),
    extra: z
      .object({
        // The two transfer methods of `exact` on EVM; anything else is a method this payer does not know.
        assetTransferMethod: z.enum(["eip3009", "permit2"]).optional(),
        name: z.string().max(256).optional(),
        version: z.string().max(64).optional(),
      })
      .loose()
      .optional(),
  })
  // Unknown fields are kept: the server compares the option it gets back with the one it offered.
  .loose();

export type OfferOption = PaymentRequirements & z.infer<typeof offerOptionSchema>;

/** An option of a 402 offer, typed, or what is wrong with it (the first field that is). */
export function parseOfferOption(raw: unknown): { option: OfferOption } | { problem: string } {
  const result = offerOptionSchema.safeParse(raw);
  if (result.success) return { option: raw as OfferOption }; // no transforms: the option as offered
  const issue = result.error.issues[0]!;
  const field = issue.path.length === 0 ? "the option" : issue.path.join(".");
  return { problem: `${field} ${issue.code === "invalid_type" ? "has the wrong type" : issue.message}` };
}

/** The transfer an option asks to sign: EIP-3009 unless it names Permit2. */
export function transferMethodOf(option: OfferOption): "eip3009" | "permit2" {
  return option.extra?.assetTransferMethod ?? "eip3009";
}
