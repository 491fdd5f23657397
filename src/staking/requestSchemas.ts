import { z } from "zod/v4";
import { FELT_PATTERN, FELT_PRIME, U128_MAX } from "./felt.js";

/** A Starknet felt: `0x` + 1–64 hex digits, below the field prime. Compared as a number. */
export const feltSchema = z
  .string()
  .regex(FELT_PATTERN, "must be 0x followed by 1 to 64 hex digits")
  .refine((v) => !FELT_PATTERN.test(v) || BigInt(v) < FELT_PRIME, "must be below the Starknet field prime")
  .meta({ description: "Starknet address (felt)", example: "0x0123abc" });

/** A non-negative integer in the token's smallest unit, as a decimal string, within u128. */
export const amountSchema = z
  .string()
  .regex(/^[0-9]{1,39}$/, "must be a non-negative decimal integer string")
  .refine((v) => !/^[0-9]{1,39}$/.test(v) || BigInt(v) <= U128_MAX, "must fit in a u128")
  .meta({
    description: "Amount in the token's smallest unit (decimal string, u128)",
    example: "1000000000000000000",
  });

const tokenAddress = feltSchema.optional().meta({ description: "Token of the pool; STRK when absent" });

export const stakeBodySchema = z
  .strictObject({
    userAddress: feltSchema,
    amount: amountSchema,
    tokenAddress,
    rewardAddress: feltSchema.optional().meta({ description: "Where rewards go; the user when absent" }),
  })
  .meta({ title: "StakeRequest" });

export const addToPoolBodySchema = z
  .strictObject({
    userAddress: feltSchema,
    amount: amountSchema,
    tokenAddress,
    poolMember: feltSchema.optional().meta({ description: "Member whose stake grows; the user when absent" }),
  })
  .meta({ title: "AddToPoolRequest" });

export const unstakeIntentBodySchema = z
  .strictObject({
    userAddress: feltSchema,
    amount: amountSchema.meta({ description: "Amount to exit; replaces a pending intent, `0` cancels it" }),
    tokenAddress,
  })
  .meta({ title: "UnstakeIntentRequest" });

export const memberBodySchema = z
  .strictObject({ userAddress: feltSchema, tokenAddress })
  .meta({ title: "MemberRequest" });

export const tokenQuerySchema = z.strictObject({ tokenAddress }).meta({ title: "TokenQuery" });

export const userAddressParamsSchema = z.strictObject({ userAddress: feltSchema });

export type StakeBody = z.output<typeof stakeBodySchema>;
export type AddToPoolBody = z.output<typeof addToPoolBodySchema>;
export type UnstakeIntentBody = z.output<typeof unstakeIntentBodySchema>;
export type MemberBody = z.output<typeof memberBodySchema>;
