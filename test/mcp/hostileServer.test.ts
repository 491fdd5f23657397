import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import {
  connectStdio,
  makeTestKeystore,
  removeTestKeystores,
  type TestKeystore,
} from "./support/payMcpClient.js";
import {
  encodeJsonHeader,
  startHostileServer,
  streamBody,
  type Handler,
  type HostileServer,
} from "./support/hostileServer.js";

// Each finding of the hostile review, replayed over stdio against a server of this file's own.
const payer = devAccount(1);
const PAYEE = devAccount(2).address;
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const PRICE = "1000";
const TX = `0x${"ab".repeat(32)}`;

let keystore: TestKeystore;
const servers: HostileServer[] = [];

beforeAll(async () => {
  keystore = await makeTestKeystore(payer.privateKey);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await removeTestKeystores();
});

function env(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    PAY_MCP_EVM_KEYSTORE_PATH: keystore.keystorePath,
    PAY_MCP_EVM_PASSWORD_PATH: keystore.passwordPath,
    PAY_MCP_EVM_NETWORKS: "eip155:31337",
    PAY_MCP_EVM_PAYEES: PAYEE,
    PAY_MCP_EVM_MAX_PER_PAYMENT: "1000000",
    PAY_MCP_EVM_MAX_PER_SESSION: "5000000",
    ...overrides,
  };
}

/** An x402 V2 offer of one option; `option` overrides any field with any JSON (wrong types included). */
function offer(option: Record<string, unknown> = {}) {
  return {
    x402Version: 2,
    error: "payment_required",
    resource: { url: "http://127.0.0.1/thing", description: "a thing", mimeType: "text/plain" },
    accepts: [
      {
        scheme: "exact",
        network: "eip155:31337",
        amount: PRICE,
        asset: TOKEN,
        payTo: PAYEE,
        maxTimeoutSeconds: 60,
        extra: { name: "TestUSDC", version: "1" },
        ...option,
      },
    ],
  };
}

function answer402(res: ServerResponse, body: Record<string, unknown>) {
  res.writeHead(402, { "content-type": "application/json", "payment-required": encodeJsonHeader(body) });
  res.end(JSON.stringify(body));
}

/** A valid receipt for the payment this payer makes. */
const goodReceipt = { success: true, transaction: TX, network: "eip155:31337", payer: payer.address };

/** Answers 402 with `body` unpaid, and `paid` to a paid request. */
async function server(body: Record<string, unknown>, paid: Handler = settle()): Promise<HostileServer> {
  const started = await startHostileServer((req, res, isPaid) =>
    isPaid ? paid(req, res, isPaid) : answer402(res, body),
  );
  servers.push(started);
  return started;
}

/** A paid answer: 200 with `text` and the given receipt header (`PAYMENT-RESPONSE` unless named). */
function settle(receipt: unknown = goodReceipt, header = "payment-response", text = "the resource"): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", [header]: encodeJsonHeader(receipt) });
    res.end(text);
  };
}

/** The nonce and lifetime the server received in the EIP-3009 authorization. */
function authorizationOf(server: HostileServer, index = 0) {
  return (server.payments[index]!.payload as { authorization: { nonce: string; validBefore: string } })
    .authorization;
}

describe("x402-pay-mcp against hostile servers (stdio)", { timeout: 180_000 }, () => {
  it("finding 1: an offer field of the wrong type is refused before signing, naming the field", async () => {
    const corpus: [string, Record<string, unknown>, RegExp][] = [
      ["amount as an array", { amount: ["1000"] }, /amount/],
      ["amount as a number", { amount: 1000 }, /amount/],
      ["amount in hex", { amount: "0x3e8" }, /amount/],
      ["amount above uint256", { amount: "9".repeat(78) }, /amount/],
      ["payTo as an array", { payTo: [PAYEE] }, /payTo/],
      ["asset as an object", { asset: { address: TOKEN } }, /asset/],
      ["maxTimeoutSeconds as a string", { maxTimeoutSeconds: "60" }, /maxTimeoutSeconds/],
      ["maxTimeoutSeconds fractional", { maxTimeoutSeconds: 1.5 }, /maxTimeoutSeconds/],
      ["network as a number", { network: 31337 }, /network/],
      ["an unknown transfer method", { extra: { assetTransferMethod: "eip2612" } }, /assetTransferMethod/],
    ];
    const fakes = await Promise.all(corpus.map(([, option]) => server(offer(option))));
    const mcp = await connectStdio(env());
    try {
      for (const [i, [name, , field]] of corpus.entries()) {
        const call = await mcp.pay(`${fakes[i]!.url}/thing`);
        expect(call.structured, name).toMatchObject({ outcome: "unpayable", code: "unsupported_offer" });
        expect(call.structured.message, name).toMatch(field);
        expect(fakes[i]!.payments, name).toEqual([]);
      }
    } finally {
      await mcp.close();
    }
  });

  it("finding 1: a receipt of the wrong types gives paid_unconfirmed with the resource, amount, payee and nonce; the amount counts", async () => {
    const fake = await server(
      offer(),
      settle({
        success: true,
        transaction: 12345,
        network: "eip155:31337",
        payer: { address: payer.address },
      }),
    );
    const mcp = await connectStdio(env({ PAY_MCP_EVM_MAX_PER_SESSION: "1500" }));
    try {
      const first = await mcp.pay(`${fake.url}/thing`);
      expect(first.isError).toBe(false);
      expect(first.structured).toMatchObject({
        outcome: "paid_unconfirmed",
        code: "invalid_receipt",
        signed: true,
        amount: PRICE,
        payee: PAYEE,
        asset: TOKEN,
        network: "eip155:31337",
        payer: payer.address,
        nonce: authorizationOf(fake).nonce,
        validBefore: authorizationOf(fake).validBefore,
        resource: { status: 200, body: "the resource", truncated: false },
      });
      expect(first.structured.transaction).toBeUndefined();
      expect(first.text).toMatch(/Do not pay this URL again/);
      // The second call would bring the session to 2000 > 1500: the first amount was counted.
      const second = await mcp.pay(`${fake.url}/thing`);
      expect(second.structured).toMatchObject({ outcome: "unpayable", code: "over_session_cap" });
      expect(fake.payments).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });

  it("finding 1: every untrustworthy receipt is reported, never copied; a valid one gives paid", async () => {
    const corpus: [string, unknown][] = [
      ["success as a string", { ...goodReceipt, success: "true" }],
      ["transaction not a hash", { ...goodReceipt, transaction: "0xnothex" }],
      ["transaction as an array", { ...goodReceipt, transaction: [TX] }],
      ["another network", { ...goodReceipt, network: "eip155:1" }],
      ["another payer", { ...goodReceipt, payer: PAYEE }],
      ["an array", [goodReceipt]],
      ["null", null],
    ];
    const fakes = await Promise.all(corpus.map(([, receipt]) => server(offer(), settle(receipt))));
    const good = await server(offer());
    const mcp = await connectStdio(env());
    try {
      for (const [i, [name]] of corpus.entries()) {
        const call = await mcp.pay(`${fakes[i]!.url}/thing`);
        expect(call.structured, name).toMatchObject({
          outcome: "paid_unconfirmed",
          code: "invalid_receipt",
          amount: PRICE,
        });
        expect(call.structured.transaction, name).toBeUndefined();
        expect(fakes[i]!.payments, name).toHaveLength(1);
      }
      const paid = await mcp.pay(`${good.url}/thing`);
      expect(paid.structured).toMatchObject({
        outcome: "paid",
        paid: true,
        signed: true,
        transaction: TX,
        nonce: authorizationOf(good).nonce,
      });
    } finally {
      await mcp.close();
    }
  });

  it("finding 2: a redirect after paying is reported, not followed; the other origin never sees the signature", async () => {
    const elsewhere = await startHostileServer((_req, res) => settle()(_req, res, true));
    servers.push(elsewhere);
    const fake = await server(offer(), (_req, res) => {
      res.writeHead(302, { location: `${elsewhere.url}/steal` });
      res.end();
    });
    const mcp = await connectStdio(env({ PAY_MCP_EVM_MAX_PER_SESSION: "1500" }));
    try {
      const call = await mcp.pay(`${fake.url}/thing`);
      expect(call.isError).toBe(false);
      expect(call.structured).toMatchObject({
        outcome: "paid_unconfirmed",
        code: "redirected",
        amount: PRICE,
        nonce: authorizationOf(fake).nonce,
      });
      expect(call.structured.message).toContain(`${elsewhere.url}/steal`);
      expect(elsewhere.requests).toEqual([]);
      expect(fake.payments).toHaveLength(1);
      // Counted: a second payment would go over the 1500 cap.
      expect((await mcp.pay(`${fake.url}/thing`)).structured).toMatchObject({ code: "over_session_cap" });
    } finally {
      await mcp.close();
    }
  });

  it("finding 2: before paying, redirects are followed within the origin only, and the payment goes to the final URL", async () => {
    const elsewhere = await server(offer());
    const hopping = await startHostileServer((req, res, paid) => {
      if (req.url === "/away") {
        res.writeHead(307, { location: `${elsewhere.url}/thing` });
        res.end();
      } else if (req.url === "/start") {
        res.writeHead(302, { location: "/final" });
        res.end("moved");
      } else if (paid) settle()(req, res, paid);
      else answer402(res, offer());
    });
    servers.push(hopping);
    const mcp = await connectStdio(env());
    try {
      const away = await mcp.pay(`${hopping.url}/away`);
      expect(away.structured).toMatchObject({ outcome: "failed", code: "redirect_refused" });
      expect(away.structured.signed).toBeUndefined();
      expect(elsewhere.requests).toEqual([]);

      const hop = await mcp.pay(`${hopping.url}/start`);
      expect(hop.structured).toMatchObject({ outcome: "paid", transaction: TX });
      expect(hopping.requests).toEqual([
        { path: "/away", paid: false },
        { path: "/start", paid: false },
        { path: "/final", paid: false },
        { path: "/final", paid: true },
      ]);
    } finally {
      await mcp.close();
    }
  });

  it("finding 3: a 1.5 GB 402 body is never read and a 1.5 GB resource is cut at PAY_MCP_EVM_MAX_BODY_BYTES (paid, truncated)", async () => {
    const HUGE = 1.5 * 1024 ** 3;
    const streams: Promise<number>[] = [];
    const fake = await startHostileServer((_req, res, paid) => {
      if (paid) {
        res.writeHead(200, {
          "content-type": "text/plain",
          "payment-response": encodeJsonHeader(goodReceipt),
        });
      } else {
        res.writeHead(402, {
          "content-type": "application/json",
          "payment-required": encodeJsonHeader(offer()),
        });
      }
      streams.push(streamBody(res, HUGE).done);
    });
    servers.push(fake);
    const mcp = await connectStdio(env({ PAY_MCP_EVM_MAX_BODY_BYTES: "4096" }));
    try {
      const call = await mcp.pay(`${fake.url}/huge`);
      const sent = await Promise.all(streams);
      expect(sent).toHaveLength(2);
      // What the server managed to write before the payer hung up: socket buffers, not the 1.5 GB.
      for (const bytes of sent) expect(bytes).toBeLessThan(64 * 1024 ** 2);
      expect(call.structured).toMatchObject({
        outcome: "paid",
        transaction: TX,
        resource: { status: 200, bytes: 4096, truncated: true, body: "x".repeat(4096) },
      });
      expect(call.text).toMatch(/truncated at 4096 bytes, PAY_MCP_EVM_MAX_BODY_BYTES/);
      const peak = peakRssBytes(mcp.pid());
      if (peak !== undefined) expect(peak).toBeLessThan(512 * 1024 ** 2);
    } finally {
      await mcp.close();
    }
  });

  it("finding 4: Permit2 is signed only with PAY_MCP_EVM_ALLOW_PERMIT2=true and PAY_MCP_EVM_ASSETS", async () => {
    const permit2 = offer({ extra: { name: "TestUSDC", version: "1", assetTransferMethod: "permit2" } });
    const fake = await server(permit2);
    const refused = await connectStdio(env());
    const noAssets = await connectStdio(env({ PAY_MCP_EVM_ALLOW_PERMIT2: "true" }));
    const allowed = await connectStdio(env({ PAY_MCP_EVM_ALLOW_PERMIT2: "true", PAY_MCP_EVM_ASSETS: TOKEN }));
    try {
      expect((await refused.pay(`${fake.url}/thing`)).structured).toMatchObject({
        outcome: "unpayable",
        code: "permit2_not_allowed",
        setting: "PAY_MCP_EVM_ALLOW_PERMIT2",
      });
      expect((await noAssets.pay(`${fake.url}/thing`)).structured).toMatchObject({
        outcome: "unpayable",
        code: "invalid_setting",
        setting: "PAY_MCP_EVM_ALLOW_PERMIT2",
      });
      expect(fake.payments).toEqual([]);
      const paid = await allowed.pay(`${fake.url}/thing`);
      expect(fake.payments).toHaveLength(1);
      const signed = fake.payments[0]!.payload as {
        permit2Authorization: { nonce: string; deadline: string };
      };
      expect(paid.structured).toMatchObject({
        outcome: "paid",
        nonce: signed.permit2Authorization.nonce,
        validBefore: signed.permit2Authorization.deadline,
      });
    } finally {
      await Promise.all([refused.close(), noAssets.close(), allowed.close()]);
    }
  });

  it("finding 5: an authorization lifetime above PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS is refused; within it, signed as asked", async () => {
    const tenYears = await server(offer({ maxTimeoutSeconds: 10 * 365 * 24 * 3600 }));
    const fiveMinutes = await server(offer({ maxTimeoutSeconds: 300 }));
    const tenMinutes = await server(offer({ maxTimeoutSeconds: 600 }));
    const byDefault = await connectStdio(env());
    const longer = await connectStdio(env({ PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS: "600" }));
    try {
      for (const fake of [tenYears, tenMinutes]) {
        const call = await byDefault.pay(`${fake.url}/thing`);
        expect(call.structured).toMatchObject({
          outcome: "unpayable",
          code: "authorization_too_long",
          setting: "PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS",
        });
        expect(call.structured.message).toMatch(/300 s/);
      }
      expect(tenYears.payments).toEqual([]);
      expect(tenMinutes.payments).toEqual([]);

      const before = Math.floor(Date.now() / 1000);
      const paid = await byDefault.pay(`${fiveMinutes.url}/thing`);
      const after = Math.floor(Date.now() / 1000);
      const validBefore = Number(authorizationOf(fiveMinutes).validBefore);
      expect(validBefore).toBeGreaterThanOrEqual(before + 300);
      expect(validBefore).toBeLessThanOrEqual(after + 300);
      expect(paid.structured).toMatchObject({ outcome: "paid", validBefore: String(validBefore) });

      expect((await longer.pay(`${tenMinutes.url}/thing`)).structured).toMatchObject({ outcome: "paid" });
      expect(tenMinutes.payments).toHaveLength(1);
    } finally {
      await Promise.all([byDefault.close(), longer.close()]);
    }
  });

  it("finding 6: only PAYMENT-RESPONSE is a receipt; X-PAYMENT-RESPONSE alone gives paid_unconfirmed no_receipt", async () => {
    const fake = await server(offer(), settle(goodReceipt, "x-payment-response"));
    const mcp = await connectStdio(env());
    try {
      const call = await mcp.pay(`${fake.url}/thing`);
      expect(call.structured).toMatchObject({
        outcome: "paid_unconfirmed",
        code: "no_receipt",
        amount: PRICE,
        resource: { body: "the resource" },
      });
      expect(call.structured.transaction).toBeUndefined();
      expect(fake.payments).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });
});

/** Peak resident memory of a process (Linux /proc), or undefined where there is none. */
function peakRssBytes(pid: number | null | undefined): number | undefined {
  if (pid === null || pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}
