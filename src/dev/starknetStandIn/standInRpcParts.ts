import { minimalFelt } from "../../starknet/StarknetRpc.js";
import type { RecognitionRegistry } from "./RecognitionRegistry.js";

/** What the stand-in answers from: its chain id, the registry contracts' addresses and their state. */
export interface StandInChain {
  chainId: string;
  /** The default registry contract's address, as a minimal felt. */
  contract: string;
  /** Every registry contract deployed (the default one included), as minimal felts: one per resource. */
  registries: Set<string>;
  /** The class hash `starknet_getClassHashAt` answers for the registry contract. */
  classHash: string;
  registry: RecognitionRegistry;
  /** The dev accounts deployed: address → Stark public key (both minimal felts). */
  accounts: Map<string, string>;
  /** The class hash `starknet_getClassHashAt` answers for a dev account. */
  accountClassHash: string;
}

export type RpcError = { code: number; message: string; data?: unknown };

/** A request the stand-in answers with one of the spec's errors. */
export class Refusal extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }
}

export const invalidParams = (why: string) =>
  new Refusal({ code: -32602, message: "Invalid params", data: why });

const FELT_INPUT = /^0x[0-9a-fA-F]{1,64}$/;
const FIELD_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;

/** A felt as the stand-in compares it: minimal lower-case hex; anything else is invalid params. */
export function felt(value: unknown, where: string): string {
  if (typeof value !== "string" || !FELT_INPUT.test(value) || BigInt(value) >= FIELD_PRIME) {
    throw invalidParams(`${where} must be a felt (0x + at most 63 hex digits, below the field prime)`);
  }
  return minimalFelt(value);
}
