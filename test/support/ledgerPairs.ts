import { randomUUID } from "node:crypto";
import { MemoryPaymentLedger } from "../../src/ledger/MemoryPaymentLedger.js";
import { RedisPaymentLedger } from "../../src/ledger/RedisPaymentLedger.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * The built-in ledgers, each as two handles on one ledger (as two gateway instances would have): the
 * same memory ledger twice, or two Redis clients on a fresh key prefix. `close` ends the Redis clients.
 */
export function ledgerPairs(prefix: string) {
  const opened: RedisPaymentLedger[] = [];
  const kinds: Array<
    [string, () => [MemoryPaymentLedger | RedisPaymentLedger, MemoryPaymentLedger | RedisPaymentLedger]]
  > = [
    [
      "memory",
      () => {
        const ledger = new MemoryPaymentLedger();
        return [ledger, ledger];
      },
    ],
    [
      "redis",
      () => {
        const keyPrefix = `${prefix}${randomUUID()}:`;
        const pair: [RedisPaymentLedger, RedisPaymentLedger] = [
          new RedisPaymentLedger({ url: REDIS_URL, keyPrefix }),
          new RedisPaymentLedger({ url: REDIS_URL, keyPrefix }),
        ];
        opened.push(...pair);
        return pair;
      },
    ],
  ];
  return { kinds, close: () => Promise.all(opened.map((ledger) => ledger.close())) };
}
