import { x402Fetch } from "../src/adapters/fetch.js";
import type { Facilitator } from "../src/facilitator/Facilitator.js";
import { decodeBase64Json, encodeBase64Json } from "../src/protocol/base64Json.js";
import type { PaymentRequirements } from "../src/protocol/schemas.js";
import { NETWORK, PAY_TO } from "./contenders.js";
import { median } from "./measure.js";
import type { BenchSettings, Section } from "./Section.js";

const PAYER = "0x3333333333333333333333333333333333333333";
const ORIGIN = "http://127.0.0.1:8080";

/** A facilitator in process that accepts every payment at once: only the buying request meets it. */
const instant: Facilitator = {
  verify: async () => ({ isValid: true, payer: PAYER }),
  settle: async () => ({
    success: true,
    transaction: `0x${"ab".repeat(32)}`,
    network: NETWORK,
    payer: PAYER,
  }),
  supported: async () => ({ kinds: [{ x402Version: 2, scheme: "exact", network: NETWORK }] }),
};

/**
 * 13. Passes (issue #37): server CPU of a request served on a valid pass (Bearer token, HMAC checked, one
 * credit spent in the in-memory ledger) against a free request, through the same paywall in process
 * (`x402Fetch()`, no sockets: what is left is the paywall's own work). Target: at most 50 µs more.
 */
export async function passScenario(settings: BenchSettings): Promise<Section> {
  const paywall = x402Fetch({
    facilitator: instant,
    payTo: PAY_TO,
    network: NETWORK,
    requireTls: false,
    publicUrl: ORIGIN,
    passes: { secret: "a-bench-pass-secret-of-32-characters-or-more" },
    routes: {
      "GET /counted/*": { price: "$0.001", pass: { requests: 1_000_000 } },
      "GET /timed/*": { price: "$0.001", pass: { seconds: 3_600 } },
    },
  });
  const answer = async () => new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
  const buy = async (path: string): Promise<string> => {
    const offer = await paywall(new Request(ORIGIN + path), answer);
    const required = decodeBase64Json(offer.headers.get("payment-required") as string) as {
      accepts: PaymentRequirements[];
    };
    const accepted = required.accepts[0] as PaymentRequirements;
    const now = Math.floor(Date.now() / 1000);
    const payment = {
      x402Version: 2,
      accepted,
      payload: {
        signature: `0x${"11".repeat(65)}`,
        authorization: {
          from: PAYER,
          to: accepted.payTo,
          value: accepted.amount,
          validAfter: String(now - 60),
          validBefore: String(now + 600),
          nonce: `0x${crypto.getRandomValues(new Uint8Array(32)).reduce((s, b) => s + b.toString(16).padStart(2, "0"), "")}`,
        },
      },
    };
    const paid = await paywall(
      new Request(ORIGIN + path, { headers: { "payment-signature": encodeBase64Json(payment) } }),
      answer,
    );
    const receipt = decodeBase64Json(paid.headers.get("payment-response") as string) as {
      extensions: { pass: { token: string } };
    };
    return receipt.extensions.pass.token;
  };

  const perRequest = settings.seconds >= 10 ? 20_000 : 5_000;
  /** CPU µs per request of `count` requests made by `make`, each answered 200 (else the run is wrong). */
  const cpuPerRequest = async (make: () => Request): Promise<number> => {
    const started = process.cpuUsage();
    for (let i = 0; i < perRequest; i++) {
      const response = await paywall(make(), answer);
      if (response.status !== 200) throw new Error(`bench: expected 200, got ${response.status}`);
      await response.arrayBuffer();
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / perRequest;
  };

  const counted = await buy("/counted/a");
  const timed = await buy("/timed/a");
  const cases = {
    free: () => new Request(`${ORIGIN}/free/a`),
    counted: () => new Request(`${ORIGIN}/counted/a`, { headers: { authorization: `Bearer ${counted}` } }),
    timed: () => new Request(`${ORIGIN}/timed/a`, { headers: { authorization: `Bearer ${timed}` } }),
  };
  for (const make of Object.values(cases)) await cpuPerRequest(make); // warm-up
  const rounds: Record<keyof typeof cases, number[]> = { free: [], counted: [], timed: [] };
  for (let round = 0; round < settings.rounds; round++) {
    for (const [name, make] of Object.entries(cases) as Array<[keyof typeof cases, () => Request]>)
      rounds[name].push(await cpuPerRequest(make));
  }
  await paywall.close();
  const free = median(rounds.free);
  const extraCounted = median(rounds.counted.map((value, i) => value - (rounds.free[i] as number)));
  const extraTimed = median(rounds.timed.map((value, i) => value - (rounds.free[i] as number)));
  const us = (value: number) => `${value.toFixed(1)} µs`;
  return {
    id: "13",
    title: "Passes: server CPU of a request on a valid pass against a free request (x402Fetch(), in process)",
    lines: [
      "| request | CPU per request | more than free |",
      "|---|--:|--:|",
      `| free route | ${us(free)} | |`,
      `| pass counted in requests (Bearer, HMAC, one credit spent) | ${us(median(rounds.counted))} | ${us(extraCounted)} |`,
      `| pass counted in time (Bearer, HMAC) | ${us(median(rounds.timed))} | ${us(extraTimed)} |`,
    ],
    targets: [
      {
        text: "a request on a valid pass ≤ 50 µs of CPU more than a free one",
        measured: us(Math.max(extraCounted, extraTimed)),
        met: Math.max(extraCounted, extraTimed) <= 50,
      },
    ],
  };
}
