import { randomUUID } from "node:crypto";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { x402, x402Node, X402OptionsError, type X402NodeOptions, type X402Options } from "../../src/index.js";
import type { RevocationReceipt } from "../../src/recognition/revokePayer.js";
import type { RevocationRequest } from "../../src/recognition/parseRevocationRequest.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";
import { PAY_TO } from "../support/payments.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { signInHeader } from "../reliability/support/signIn.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
// Public anvil dev keys: they only sign here.
const refunded = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const member = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");
const PUBLIC_URL = "http://gateway.test";
const SECRET = "revocation-suite-shared-sign-in-secret-0123456789";

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
const upstreamHits: string[] = [];

beforeAll(async () => {
  // The chain keeps answering 0x1 for both payers: only the revocation can keep the refunded one out.
  rpc = await startStarknetRpcServer({ call: () => ["0x1"] });
  facilitator = await startFacilitatorDouble();
});

afterAll(async () => {
  await facilitator.close();
  expect(rpc.validationFailures).toEqual([]);
  await rpc.close();
});

interface Served {
  url: string;
  revoke(request: RevocationRequest): Promise<RevocationReceipt>;
  close(): Promise<void>;
}

function options(extra: Partial<X402Options> = {}): X402Options {
  return {
    facilitator: { url: facilitator.url },
    payTo: PAY_TO,
    network: "eip155:84532",
    publicUrl: PUBLIC_URL,
    recognition: { rpcUrl: rpc.url, contract: "0x0456abc", timeoutMs: 2_000, signInSecret: SECRET },
    routes: { "GET /member": { price: "$0.001" } },
    ...extra,
  };
}

async function serveExpress(extra?: Partial<X402Options>): Promise<Served> {
  const paywall = x402(options(extra));
  const app = express()
    .use(paywall)
    .get("/member", (_req, res) => {
      upstreamHits.push("/member");
      res.json({ member: true });
    });
  const server = await listenOnLoopback(app);
  return {
    url: server.url,
    revoke: paywall.revoke,
    close: async () => {
      await server.close();
      await paywall.close();
    },
  };
}

async function serveNode(extra?: Partial<X402Options>): Promise<Served> {
  const paywall = x402Node(options(extra) as X402NodeOptions);
  const server: LoopbackServer = await listenOnLoopback(
    paywall.wrap((_req, res) => {
      upstreamHits.push("/member");
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ member: true }));
    }),
  );
  return {
    url: server.url,
    revoke: paywall.revoke,
    close: async () => {
      await server.close();
      await paywall.close();
    },
  };
}

/** Sign in as `account` at `at` with a challenge it issued; resolves the status. */
async function signIn(account: typeof refunded, at: Served, challengeFrom: Served = at): Promise<number> {
  const header = await signInHeader(account, challengeFrom.url, "/member", PUBLIC_URL);
  const response = await fetch(`${at.url}/member`, { headers: { "sign-in-with-x": header } });
  await response.arrayBuffer();
  return response.status;
}

describe.each([
  ["x402() (Express)", serveExpress],
  ["x402Node()", serveNode],
])("%s revoke()", (_name, serve) => {
  it("a recognized payer is served without paying; after revoke() the next request must pay, while the chain still says 0x1", async () => {
    const gateway = await serve();
    try {
      const paidBefore = facilitator.count("settle");
      expect(await signIn(refunded, gateway)).toBe(200);
      const receipt = await gateway.revoke({
        payer: refunded.address.toUpperCase().replace("0X", "0x"),
        reason: "refund",
      });
      expect(receipt).toMatchObject({
        revoked: true,
        payer: refunded.address.toLowerCase(),
        reason: "refund",
      });
      expect(receipt.until).toBeGreaterThan(Date.now());
      const callsBefore = rpc.calls().length;
      expect(await signIn(refunded, gateway)).toBe(402);
      // Refused without asking the chain, which would still have said 0x1.
      expect(rpc.calls().length).toBe(callsBefore);
      expect(await signIn(member, gateway)).toBe(200);
      expect(facilitator.count("settle")).toBe(paidBefore);
    } finally {
      await gateway.close();
    }
  });

  it("refuses a malformed revocation with invalid_revocation, naming the field", async () => {
    const gateway = await serve();
    try {
      for (const bad of [{ payer: "0x1234" }, { payer: refunded.address, extra: 1 }, {}] as never[]) {
        await expect(gateway.revoke(bad)).rejects.toMatchObject({ code: "invalid_revocation", status: 400 });
      }
    } finally {
      await gateway.close();
    }
  });
});

describe("two paywalls sharing a Redis ledger", () => {
  it("a revocation at A is refused at B on the very next request, whatever the pub/sub timing", async () => {
    const ledger = { type: "redis" as const, url: REDIS_URL, keyPrefix: `test:revocation:${randomUUID()}:` };
    const revocation = { keyPrefix: `test:revoked:${randomUUID()}:` };
    const a = await serveExpress({ ledger, revocation });
    const b = await serveNode({ ledger, revocation });
    try {
      expect(await signIn(refunded, b)).toBe(200);
      await a.revoke({ payer: refunded.address, reason: "refund" });
      expect(await signIn(refunded, b)).toBe(402);
      expect(await signIn(refunded, a)).toBe(402);
      expect(await signIn(member, b, a)).toBe(200);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("Redis down: revoke() rejects with revocation_unavailable", async () => {
    const { closedPort } = await import("../gateway/support/startUpstream.js");
    const gateway = await serveExpress({
      ledger: { type: "redis", url: `redis://127.0.0.1:${await closedPort()}`, commandTimeoutMs: 300 },
    });
    try {
      await expect(gateway.revoke({ payer: refunded.address })).rejects.toMatchObject({
        code: "revocation_unavailable",
        status: 503,
      });
    } finally {
      // Quitting a client that never connected fails too: nothing to release.
      await gateway.close().catch(() => undefined);
    }
  });
});

describe("revocation.holdMs", () => {
  it("is refused at start-up when shorter than what a recognition cache may serve", () => {
    expect(() => x402(options({ revocation: { holdMs: 60_000 } }))).toThrow(X402OptionsError);
    expect(() => x402(options({ revocation: { holdMs: 60_000 } }))).toThrow(
      /revocation\.holdMs: expected at least 4200000/,
    );
  });
});
