import type { PaymentRequirements } from "@x402/core/types";
import { isAddress } from "viem";
import { z } from "zod/v4";
import { isSolanaAddress } from "../protocol/isSolanaAddress.js";

const UINT256_MAX = 2n ** 256n - 1n;
const DIGITS = /^(0|[1-9][0-9]{0,77})$/;

const address = z
  .string()
  .max(42)
  .refine((value) => isAddress(value, { strict: false }), "is not an address (0x + 40 hex digits)");

const solanaAddress = z
  .string()
  .max(44)
  .refine(isSolanaAddress, "is not a Solana address (base58 of 32 bytes)");

const amount = z.string({ error: "is not a string" }).check((ctx) => {
  // One check, not regex then refine: zod runs every check, and BigInt throws on non-digits.
  if (!DIGITS.test(ctx.value))
    ctx.issues.push({ code: "custom", message: "is not a whole number in digits", input: ctx.value });
  else if (BigInt(ctx.value) > UINT256_MAX)
    ctx.issues.push({ code: "custom", message: "is above 2^256 - 1", input: ctx.value });
});

const maxTimeoutSeconds = z.number().int("is not a whole number").positive("is not positive");

/**
 * One EVM `accepts` entry the payer can sign: scheme `exact` (or `exact-pq`, the same EIP-3009 authorization)
 * on an EVM network, every field of the type the protocol gives it (a JSON array is not a string, even if
 * its only item is digits).
 */
const offerOptionSchema = z
  .object({
    scheme: z.enum(["exact", "exact-pq"], { error: "is not exact or exact-pq" }),
    network: z.string().regex(/^eip155:[1-9][0-9]{0,31}$/, "is not an EVM network (eip155:<chain id>)"),
    amount,
    asset: address,
    payTo: address,
    maxTimeoutSeconds,
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

/**
 * One Solana `accepts` entry: scheme `exact` (an SPL `TransferChecked` the facilitator's fee payer
 * co-signs), a `solana:` network, base58 mint, payee and fee payer.
 */
const solanaOptionSchema = z
  .object({
    scheme: z.literal("exact", { error: "is not exact (the one scheme on Solana)" }),
    network: z
      .string()
      .regex(/^solana:[1-9A-HJ-NP-Za-km-z]{32}$/, "is not a Solana network (solana:<genesis hash prefix>)"),
    amount,
    asset: solanaAddress,
    payTo: solanaAddress,
    maxTimeoutSeconds,
    extra: z.object({ feePayer: solanaAddress }).loose(),
  })
  .loose();

export type OfferOption = PaymentRequirements &
  (z.infer<typeof offerOptionSchema> | z.infer<typeof solanaOptionSchema>);

/** An option of a 402 offer, typed, or what is wrong with it (the first field that is). */
export function parseOfferOption(raw: unknown): { option: OfferOption } | { problem: string } {
  const onSolana =
    typeof raw === "object" &&
    raw !== null &&
    typeof (raw as { network?: unknown }).network === "string" &&
    (raw as { network: string }).network.startsWith("solana:");
  const result = (onSolana ? solanaOptionSchema : offerOptionSchema).safeParse(raw);
  if (result.success) return { option: raw as OfferOption }; // no transforms: the option as offered
  const issue = result.error.issues[0]!;
  const field = issue.path.length === 0 ? "the option" : issue.path.join(".");
  return { problem: `${field} ${issue.code === "invalid_type" ? "has the wrong type" : issue.message}` };
}

/** The transfer an option asks to sign: on EVM, EIP-3009 unless it names Permit2; an SPL transfer on Solana. */
export function transferMethodOf(option: OfferOption): "eip3009" | "permit2" | "spl" {
  if (isSolanaOption(option)) return "spl";
  return (
    (option.extra as { assetTransferMethod?: "eip3009" | "permit2" } | undefined)?.assetTransferMethod ??
    "eip3009"
  );
}

/** Whether `option` pays on Solana (an SPL transfer signed with the keypair file's key). */
export function isSolanaOption(option: { network: string }): boolean {
  return option.network.startsWith("solana:");
}
