import { expect } from "vitest";
import type { RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import type { IntentKey } from "../../src/payer/IntentKey.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { decodeClaim } from "../../src/protocol/cbor/Claim.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import type { CborTarget } from "./cborTargets.js";

/**
 * Pays `target`'s `/quote` with an EvmSigner `key` and expects the money path whole: 200, one settlement,
 * the payer debited and the merchant credited `price`, a valid receipt whose subject is `["evm", address]`,
 * and `address` (lower-case) the one EVM address recorded since (`recorded()`, the facilitator's
 * `onSettled` addresses: what recognition records).
 */
export async function expectEvmIntentPays(
  target: CborTarget,
  facilitator: RunningCborFacilitator,
  key: IntentKey,
  options: {
    address: string;
    price: bigint;
    merchant: string;
    balance: () => bigint | undefined;
    recorded: () => readonly string[];
    now: () => number;
  },
): Promise<void> {
  expect(`0x${Buffer.from(key.publicKey).toString("hex")}`).toBe(options.address.toLowerCase());
  const before = {
    payer: options.balance()!,
    merchant: facilitator.merchantBalance(options.merchant, "USDC"),
  };
  const settled = facilitator.book.settlements();
  const recorded = options.recorded().length;
  const served = target.served("/quote");
  const paid = await payCborRoute(`${target.url}/quote`, { key, now: options.now });
  expect(paid.response.status).toBe(200);
  expect(target.served("/quote")).toBe(served + 1);
  expect(facilitator.book.settlements()).toBe(settled + 1);
  expect(options.balance()).toBe(before.payer - options.price);
  expect(facilitator.merchantBalance(options.merchant, "USDC")).toBe(before.merchant + options.price);
  expect(verifyReceipt(paid.receipt!, facilitator.receiptKey).valid).toBe(true);
  const claim = decodeClaim(paid.receipt!.claim);
  expect(claim.signer).toBe("evm");
  expect(Buffer.from(claim.subject).equals(Buffer.from(key.publicKey))).toBe(true);
  expect(options.recorded().slice(recorded)).toEqual([options.address.toLowerCase()]);
}
