import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { watchPayee } from "../../reliability/support/chainFacts.js";
import { localGatewayConfig } from "../../reliability/support/localGatewayConfig.js";
import { paymentSigner, type PaymentSigner } from "../../reliability/support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "../../reliability/support/spawnGateway.js";
import { haproxyBinary, startHaproxy, type Haproxy } from "../../reliability/support/startHaproxy.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../reliability/support/startCountingUpstream.js";
import type { GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";

/**
 * A pass bought at one gateway is counted once across three: `x402-gateway serve` ×3 behind HAProxy (round
 * robin), one Redis ledger; checked at the upstream (hits) and on anvil (one transfer).
 */
const HAPROXY = haproxyBinary();
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ADMIN_TOKEN = "an-admin-token-of-at-least-32-characters";

let stack: LocalStack;
let upstream: CountingUpstream;
let signer: PaymentSigner;
let gateways: GatewayProcess[] = [];
let haproxy: Haproxy | undefined;

beforeAll(async () => {
  if (HAPROXY === undefined) return;
  [stack, upstream] = await Promise.all([startLocalStack(), startCountingUpstream()]);
  signer = paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address);
  const config: GatewayConfigInput = {
    ...localGatewayConfig({
      stack,
      upstreamUrl: upstream.url,
      redis: { url: REDIS_URL, keyPrefix: `test:passes:${randomUUID()}:` },
      routes: {
        "GET /paid/*": { price: "$0.001", pass: { requests: 10 } },
        "GET /other": { price: "$0.001", pass: { requests: 10 } },
      },
      publicUrl: "http://gateway.test",
      logLevel: "error",
    }),
    passes: { secret: "a-pass-secret-every-gateway-shares-0123" },
    admin: { enabled: true, token: ADMIN_TOKEN },
  };
  gateways = await Promise.all(
    [1, 2, 3].map(() => spawnGateway(config, { detached: true, startTimeoutMs: 90_000 })),
  );
  haproxy = await startHaproxy(
    HAPROXY as string,
    gateways.map((gateway) => gateway.url),
  );
}, 180_000);

afterAll(async () => {
  await haproxy?.stop();
  await Promise.all(gateways.map((gateway) => gateway.stop("SIGKILL")));
  await Promise.all([upstream?.close(), stack?.stop()]);
});

describe.skipIf(HAPROXY === undefined)("passes across three gateways behind HAProxy, on Redis", () => {
  it("50 concurrent requests spend a 10-request pass exactly 10 times (the paying one first); one transfer", async () => {
    const url = `${haproxy?.url}/paid/report`;
    const chain = await watchPayee(stack);
    const hitsBefore = upstream.hits.get("/paid/report") ?? 0;
    const [header] = await signer.sign(url, 1);
    const bought = await fetch(url, { headers: { "payment-signature": header as string } });
    expect(bought.status).toBe(200);
    const receipt = decodeBase64Json(bought.headers.get("payment-response") as string) as {
      extensions: { pass: { token: string; remaining: number } };
    };
    const { token, remaining } = receipt.extensions.pass;
    expect(remaining).toBe(9);
    const answers = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        const body = await response.text();
        return { status: response.status, body };
      }),
    );
    const served = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(served).toHaveLength(9);
    expect(refused).toHaveLength(41);
    for (const answer of refused) expect(JSON.parse(answer.body)).toMatchObject({ error: "pass_rejected" });
    expect((upstream.hits.get("/paid/report") ?? 0) - hitsBefore).toBe(10);
    expect(await chain.transfersToPayee()).toEqual({ count: 1, total: 1_000n });

    // The same token on another scope is refused, at whichever gateway answers.
    for (let i = 0; i < 3; i++) {
      const other = await fetch(`${haproxy?.url}/other`, { headers: { authorization: `Bearer ${token}` } });
      expect(other.status).toBe(402);
      expect(await other.json()).toMatchObject({ error: "pass_rejected", details: { reason: "scope" } });
    }
  }, 120_000);

  it("a revocation at one gateway ends the pass at every gateway", async () => {
    const url = `${haproxy?.url}/paid/revoked`;
    const [header] = await signer.sign(url, 1);
    const bought = await fetch(url, { headers: { "payment-signature": header as string } });
    expect(bought.status).toBe(200);
    const { token } = (
      decodeBase64Json(bought.headers.get("payment-response") as string) as {
        extensions: { pass: { token: string } };
      }
    ).extensions.pass;
    const revoked = await fetch(`${gateways[0]?.url}/_x402/admin/revocations`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ payer: stack.accounts.payer.address, reason: "refunded" }),
    });
    expect(revoked.status).toBe(200);
    for (const gateway of gateways) {
      const answer = await fetch(`${gateway.url}/paid/revoked`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(402);
      expect(await answer.json()).toMatchObject({ details: { reason: "unknown" } });
    }
  }, 60_000);
});
