import { expect } from "vitest";
import type { RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import type { IntentKey } from "../../src/payer/IntentKey.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import type { CborTarget } from "./cborTargets.js";

/**
 * Forgeries of `honest`'s signature, each presented for its subject: the honest signature with byte
 * `tamperByte` flipped, each of `others`' signatures (another key's, another chain's…), and `malformed`.
 */
export function forgeriesOf(
  honest: IntentKey,
  options: { tamperByte: number; others: IntentKey[]; malformed: Uint8Array },
): IntentKey[] {
  const tampered = (bytes: Uint8Array) => {
    const signature = honest.sign(bytes);
    signature[options.tamperByte] = signature[options.tamperByte]! ^ 1;
    return signature;
  };
  return [
    { ...honest, sign: tampered },
    ...options.others.map((other) => ({ ...honest, sign: (bytes: Uint8Array) => other.sign(bytes) })),
    { ...honest, sign: () => options.malformed },
  ];
}

/**
 * Pays `target`'s `/quote` with each of {@link forgeriesOf} `honest` and expects a 402 with `code` (default
 * `verification_failed`) and nothing moved: the honest payer's balance, the facilitator's settlements and
 * what the route served.
 */
export async function expectForgeriesRefused(
  target: CborTarget,
  facilitator: RunningCborFacilitator,
  honest: IntentKey,
  options: Parameters<typeof forgeriesOf>[1] & {
    balance: () => bigint | undefined;
    now: () => number;
    code?: string;
  },
): Promise<void> {
  for (const key of forgeriesOf(honest, options)) {
    const before = options.balance();
    const settled = facilitator.book.settlements();
    const served = target.served("/quote");
    const paid = await payCborRoute(`${target.url}/quote`, { key, now: options.now });
    expect(paid.response.status).toBe(402);
    expect(paid.response.headers.get("x402-error")).toBe(options.code ?? "verification_failed");
    expect(options.balance()).toBe(before);
    expect(facilitator.book.settlements()).toBe(settled);
    expect(target.served("/quote")).toBe(served);
  }
}
