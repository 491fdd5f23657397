import { randomUUID } from "node:crypto";
import {
  closeSharedRedis,
  isCluster,
  openSharedRedis,
  whenRedisReady,
} from "../../src/common/openSharedRedis.js";
import {
  LedgerUnavailableError,
  RedisPaymentLedger,
  ledgerKeys,
  type RedisPaymentLedgerOptions,
} from "../../src/ledger/RedisPaymentLedger.js";
import { injectedFaults } from "./injectedFaults.js";
import { sleep } from "./redisProcesses.js";

/** What a ledger client saw of one failover. */
export interface FailoverWindow {
  /** From the first refused reserve to the first served after the last refusal, in ms (to the give-up if none). */
  windowMs: number;
  refused: number;
  served: number;
  /** Served again after the fault, before the probe gave up. */
  recovered: boolean;
  /** Refusals other than `LedgerUnavailableError` (the paywall would answer them 500, not 503), by message. */
  otherErrors: Record<string, number>;
  /** Once served again: how many of the reservations acknowledged before or during the failover were checked … */
  survivorsChecked: number;
  /** … and how many of them the master no longer held afterwards (lost writes). */
  lost: number;
}

export interface FailoverWindowOptions {
  /** Where the ledger is (`cluster`, `sentinel`, `wait`); the key prefix is made fresh. */
  where: RedisPaymentLedgerOptions;
  /** The fault; told a key of the probe's ledger (to find its master). Resolves once it is done. */
  fault: (ledgerKey: string) => Promise<unknown>;
  /** The probe gives up after being refused this long without a served reserve in between, in ms. */
  giveUpAfterMs: number;
}

/** Each probe reservation's hold: longer than any probe, so that only a lost write frees one. */
const HOLD_MS = 10 * 60_000;
const PROBE_INTERVAL_MS = 20;

/**
 * A ledger client reserving a fresh payment every 20 ms while `fault` runs; once served again, every
 * payment it was acknowledged is looked up on the master: one whose reservation is gone is a write the
 * failover lost (`ledger.wait` promises none). Read, not reserved again: a reserve refused after it wrote
 * (its `WAIT` short of replicas, as right after a failover) would leave a reservation of the check's own
 * that the retry reads as "in progress", hiding the loss. With the injected fault `lose-write` one
 * reservation is dropped (released, until the master no longer has it) before the check.
 */
export async function failoverWindow(options: FailoverWindowOptions): Promise<FailoverWindow> {
  const keyPrefix = `window:${randomUUID()}:`;
  const ledger = new RedisPaymentLedger({ ...options.where, keyPrefix, commandTimeoutMs: 1_000 });
  const acknowledged: Array<{ id: string; token: string }> = [];
  const otherErrors: Record<string, number> = {};
  let refused = 0;
  let firstRefusal: number | undefined;
  let lastServed = Date.now();
  let lastRecovery: number | undefined;
  let failing = false;
  const gaveUp = () => failing && Date.now() - lastServed > options.giveUpAfterMs;
  /** One ledger call: its result, or undefined when refused (counted, and the window opened or kept open). */
  const ask = async <T>(call: () => Promise<T>): Promise<{ value: T } | undefined> => {
    try {
      const value = await call();
      lastServed = Date.now();
      if (failing) lastRecovery = lastServed;
      failing = false;
      return { value };
    } catch (error) {
      refused++;
      firstRefusal ??= Date.now();
      failing = true;
      if (!(error instanceof LedgerUnavailableError)) {
        const message = (error as Error).message;
        otherErrors[message] = (otherErrors[message] ?? 0) + 1;
      }
      return undefined;
    }
  };
  /** `call` until served; undefined once the probe gives up. */
  const served = async <T>(call: () => Promise<T>): Promise<{ value: T } | undefined> => {
    for (;;) {
      const result = await ask(call);
      if (result !== undefined || gaveUp()) return result;
      await sleep(PROBE_INTERVAL_MS);
    }
  };
  try {
    let done = false;
    const probe = (async () => {
      for (let i = 0; (!done || failing) && !gaveUp(); i++) {
        const outcome = (await ask(() => ledger.reserve(`w${i}`, { holdMs: HOLD_MS })))?.value;
        if (outcome?.status === "reserved") acknowledged.push({ id: `w${i}`, token: outcome.token });
        await sleep(PROBE_INTERVAL_MS);
      }
    })();
    try {
      await sleep(300);
      await options.fault(`{${keyPrefix}}x`);
      await sleep(1_000);
    } finally {
      done = true;
      await probe;
    }
    let checked = 0;
    let lost = 0;
    if (!failing) {
      const held = await reservationReader(options.where, keyPrefix);
      try {
        const dropped = injectedFaults().has("lose-write") ? acknowledged[0] : undefined;
        // A release is not waited for (a lost one only holds a payment until its hold ends): repeat it until
        // the master no longer has the reservation, so that a second failover cannot undo the injected loss.
        const dropBy = Date.now() + READ_WITHIN_MS;
        while (dropped && (await held(dropped.id)) === true && Date.now() < dropBy) {
          await served(() => ledger.release(dropped.id, dropped.token));
          await sleep(PROBE_INTERVAL_MS);
        }
        for (const { id } of acknowledged) {
          const present = await held(id);
          if (present === undefined) break;
          checked++;
          if (!present) lost++;
        }
      } finally {
        await held.close();
      }
    }
    return {
      windowMs: firstRefusal === undefined ? 0 : (lastRecovery ?? Date.now()) - firstRefusal,
      refused,
      served: acknowledged.length,
      recovered: !failing,
      otherErrors,
      survivorsChecked: checked,
      lost,
    };
  } finally {
    await ledger.close();
  }
}

/**
 * Whether the master holds a probe reservation: `EXISTS` on its own client, asked until answered (at
 * most {@link READ_WITHIN_MS}); undefined when it could not be read.
 */
async function reservationReader(
  where: RedisPaymentLedgerOptions,
  keyPrefix: string,
): Promise<((id: string) => Promise<boolean | undefined>) & { close(): Promise<void> }> {
  const topology = { url: where.url, cluster: where.cluster, sentinel: where.sentinel };
  const client = await openSharedRedis(topology, { timeoutMs: 1_000 });
  const keys = ledgerKeys(keyPrefix, isCluster(client));
  const read = async (id: string): Promise<boolean | undefined> => {
    const deadline = Date.now() + READ_WITHIN_MS;
    for (;;) {
      try {
        await whenRedisReady(client, 1_000);
        return (await client.exists(keys.payment(id))) === 1;
      } catch {
        if (Date.now() > deadline) return undefined;
        await sleep(PROBE_INTERVAL_MS);
      }
    }
  };
  return Object.assign(read, { close: () => closeSharedRedis(client) });
}

/** How long the check asks for one reservation before it gives up, in ms. */
const READ_WITHIN_MS = 30_000;
