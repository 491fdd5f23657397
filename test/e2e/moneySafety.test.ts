import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { decodePaymentSignature, encodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { verifyReceipt } from "../../src/protocol/cbor/verifyReceipt.js";
import { CBOR, signedIntent } from "../support/cborClient.js";
import { decodeErrorBody } from "../../src/protocol/cbor/ErrorBody.js";
import { CBOR_TARGET_KINDS, startCborTarget, type CborTarget } from "../support/cborTargets.js";
import { startDelayingFacilitator, type DelayingFacilitator } from "../support/delayingFacilitator.js";
import { officialClient, officialSolanaClient, signOfficialPayment } from "./support/officialPayment.js";

/**
 * One money path, one table: every case runs for both payment formats (base64 JSON on anvil through the
 * official client and facilitator, and on the LOCAL Solana engine through the official @x402/svm client and
 * facilitator scheme; application/x402+cbor through the local CBOR facilitator's books)
 * and through x402(), x402Node() and the gateway. Every case checks what moved (balances), what was
 * settled, and what the handler or upstream served: never a 2xx without a settled payment, never a
 * payment without a delivered 2xx.
 */

const PRICE = 10_000n;
const MERCHANT = "merchant:money-safety";
const cborKey = createSigningKey("ed25519");
let tick = 0;

let stack: LocalStack;
let cborFacilitator: RunningCborFacilitator;
let jsonFaults: DelayingFacilitator;
let cborFaults: DelayingFacilitator;

beforeAll(async () => {
  stack = await startLocalStack({ solana: true });
  cborFacilitator = await startCborFacilitator({
    accounts: [{ publicKey: cborKey.publicKey, balances: { USDC: 100n * PRICE } }],
  });
  jsonFaults = await startDelayingFacilitator(stack.facilitatorUrl);
  cborFaults = await startDelayingFacilitator(cborFacilitator.url);
}, 120_000);

afterAll(async () => {
  await jsonFaults?.close();
  await cborFaults?.close();
  await cborFacilitator?.stop();
  await stack?.stop();
});

/** What differs per format in a test: signing, sending, reading balances and receipts. */
interface Format {
  name: "json" | "cbor" | "solana";
  faults: () => DelayingFacilitator;
  /** A fresh payment for `method` `url` (one the payer never used). */
  sign(url: string, method?: string): Promise<string>;
  /** The same identity (what may pay once), other bytes: what someone who saw it on chain could build. */
  forge(header: string): string;
  headers(header: string): Record<string, string>;
  payer(): Promise<bigint>;
  payee(): Promise<bigint>;
  /** The refusal code of a 402 or other refusal. */
  code(response: Response): Promise<string | null>;
  receiptOk(header: string | null): boolean;
}

const json: Format = {
  name: "json",
  faults: () => jsonFaults,
  sign: async (url, method = "GET") =>
    (
      await signOfficialPayment(officialClient(stack.accounts.payer.privateKey, stack.token.address), url, {
        method,
      })
    ).header,
  forge: (header) => {
    const payment = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    payment.payload.signature = `0x${"11".repeat(65)}`;
    return Buffer.from(JSON.stringify(payment)).toString("base64");
  },
  headers: (header) => ({ "PAYMENT-SIGNATURE": header }),
  payer: () => stack.balanceOf(stack.accounts.payer.address),
  payee: () => stack.balanceOf(stack.accounts.payee.address),
  code: async (response) => ((await response.json()) as { error?: string }).error ?? null,
  receiptOk: (header) =>
    header !== null && JSON.parse(Buffer.from(header, "base64").toString("utf8")).success === true,
};

const cbor: Format = {
  name: "cbor",
  faults: () => cborFaults,
  sign: async (url, method = "GET") => {
    const offer = await fetch(url, { method, headers: { accept: CBOR } });
    const header = offer.headers.get("payment-required");
    if (offer.status !== 402 || header === null) throw new Error(`no CBOR offer from ${method} ${url}`);
    return signedIntent(decodeBase64(header), cborKey, {}, { time: time() });
  },
  forge: (header) => {
    const payment = decodePaymentSignature(decodeBase64(header));
    const signature = Uint8Array.from(payment.signature ?? []);
    signature[0] = (signature[0] ?? 0) ^ 0xff;
    return Buffer.from(encodePaymentSignature({ ...payment, signature })).toString("base64");
  },
  headers: (header) => ({ "content-type": CBOR, accept: CBOR, "payment-signature": header }),
  payer: async () => cborFacilitator.payerBalance(cborKey.publicKey, "USDC") ?? 0n,
  payee: async () => cborFacilitator.merchantBalance(MERCHANT, "USDC"),
  code: async (response) =>
    response.headers.get("x-402-error") ??
    response.headers.get("x402-error") ??
    // A CBOR client's other refusals are CBOR error bodies, never JSON.
    (response.status !== 402 && response.headers.get("content-type") === CBOR
      ? decodeErrorBody(new Uint8Array(await response.arrayBuffer())).error
      : null),
  receiptOk: (header) =>
    header !== null && verifyReceipt(decodeBase64(header), cborFacilitator.receiptKey).valid,
};

/** The Solana engine: the JSON format, paid with the official @x402/svm client on the route's Solana option. */
const solana: Format = {
  ...json,
  name: "solana",
  sign: async (url, method = "GET") =>
    (await signOfficialPayment(officialSolanaClient(stack.solana!), url, { method })).header,
  // Another encoding of the same message: the payer's signature bytes changed, the identity kept.
  forge: (header) => {
    const payment = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
    const wire = Buffer.from(payment.payload.transaction, "base64");
    wire[1 + 64] = (wire[1 + 64] ?? 0) ^ 0xff;
    payment.payload.transaction = wire.toString("base64");
    return Buffer.from(JSON.stringify(payment)).toString("base64");
  },
  payer: () => stack.solana!.tokenBalance(stack.solana!.accounts.payer.address),
  payee: () => stack.solana!.tokenBalance(stack.solana!.accounts.payee.address),
};

/** Each CBOR intent its own second: the same key, offer and second sign the same intent, which pays once. */
function time(): number {
  return Math.floor(Date.now() / 1000) + tick++;
}

function settings() {
  const cborPrice = { currency: "USDC" as const, amount: PRICE.toString() };
  const price = { amount: PRICE.toString(), asset: stack.token.address };
  // Every route also takes Solana: USDC on the engine's mint by default, the fee payer from /supported.
  const sol = stack.solana!;
  const accepts = [{ network: sol.network, payTo: sol.accounts.payee.address, price: "$0.01" }];
  return {
    facilitator: { url: jsonFaults.url, timeoutMs: 10_000, settleTimeoutMs: 1_000 },
    cbor: {
      merchantPseudonym: MERCHANT,
      facilitator: { url: cborFaults.url, timeoutMs: 1_000, settleTimeoutMs: 1_000 },
    },
    payTo: stack.accounts.payee.address,
    network: stack.network,
    assets: [
      { network: stack.network, address: stack.token.address, decimals: 6, name: "USDC", version: "2" },
    ],
    rpcUrls: { [stack.network]: stack.rpcUrl, [sol.network]: sol.rpcUrl },
    settlementCheckTimeoutMs: 2_000,
    routes: {
      "GET /quote": { price, accepts, cbor: cborPrice },
      "GET /500": { price, accepts, cbor: cborPrice },
      "GET /before": { price, accepts, cbor: cborPrice, settle: "before" as const },
      "POST /upload": { price, accepts, cbor: cborPrice, settle: "before" as const },
    },
  };
}

describe.each(CBOR_TARGET_KINDS)("the money path through %s", (kind) => {
  describe.each([json, cbor, solana])("$name payments", (format) => {
    let target: CborTarget;
    beforeAll(async () => {
      target = await startCborTarget(kind, settings(), Date.now);
    });
    afterAll(async () => target?.stop());

    const balances = async () => ({ payer: await format.payer(), payee: await format.payee() });
    const send = (path: string, header: string, init: RequestInit = {}) =>
      fetch(`${target.url}${path}`, { ...init, headers: format.headers(header) });
    const resetFaults = () =>
      Object.assign(format.faults(), {
        verifyDelayMs: 0,
        settleMode: "forward",
        settleDelayMs: 0,
        dropStatus: false,
      });

    it("pays once: 200 with a receipt, exactly the price moved, one settlement, one hit; the same payment again moves nothing", async () => {
      resetFaults();
      const header = await format.sign(`${target.url}/quote`);
      const before = await balances();
      const settled = format.faults().settled;
      const served = target.served("/quote");
      const response = await send("/quote", header);
      expect(response.status).toBe(200);
      expect(format.receiptOk(response.headers.get("payment-response"))).toBe(true);
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE);
      expect(after.payee - before.payee).toBe(PRICE);
      expect(format.faults().settled - settled).toBe(1);
      expect(target.served("/quote") - served).toBe(1);

      const replay = await send("/quote", header);
      expect(replay.status).toBe(402);
      expect(await format.code(replay)).toBe("payment_already_used");
      expect(await balances()).toEqual(after);
      expect(target.served("/quote") - served).toBe(1);
    });

    it("an upstream that fails is passed on, and nothing is settled or moved", async () => {
      resetFaults();
      const header = await format.sign(`${target.url}/500`);
      const before = await balances();
      const settled = format.faults().settled;
      const response = await send("/500", header);
      expect(response.status).toBe(500);
      expect(response.headers.get("payment-response")).toBeNull();
      expect(await balances()).toEqual(before);
      expect(format.faults().settled).toBe(settled);
      expect(target.served("/500")).toBeGreaterThan(0);
    });

    it.each(["/quote", "/before"])(
      "%s: a client gone during verification is neither served nor charged, and its payment is free again",
      async (path) => {
        resetFaults();
        const header = await format.sign(`${target.url}${path}`);
        const before = await balances();
        const served = target.served(path);
        format.faults().verifyDelayMs = 500;
        const verifying = format.faults().nextVerify();
        const abort = new AbortController();
        const first = send(path, header, { signal: abort.signal }).catch((error: Error) => error.name);
        await verifying;
        abort.abort();
        expect(await first).toBe("AbortError");
        format.faults().verifyDelayMs = 0;
        // The paywall finishes verifying, sees nobody to serve, releases: then the same payment pays.
        let retry = await send(path, header);
        for (let attempt = 0; retry.status === 409 && attempt < 50; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          retry = await send(path, header);
        }
        expect(retry.status).toBe(200);
        const after = await balances();
        expect(before.payer - after.payer).toBe(PRICE);
        expect(after.payee - before.payee).toBe(PRICE);
        expect(target.served(path) - served).toBe(1);
      },
    );

    it.each(["/quote", "/before"])(
      "%s: a /settle cut after it landed is found out, served once with a receipt, charged once",
      async (path) => {
        resetFaults();
        const header = await format.sign(`${target.url}${path}`);
        const before = await balances();
        const served = target.served(path);
        format.faults().settleMode = "cut";
        const response = await send(path, header);
        resetFaults();
        expect(response.status).toBe(200);
        expect(format.receiptOk(response.headers.get("payment-response"))).toBe(true);
        const after = await balances();
        expect(before.payer - after.payer).toBe(PRICE);
        expect(after.payee - before.payee).toBe(PRICE);
        expect(target.served(path) - served).toBe(1);
        expect((await send(path, header)).status).toBe(402);
        expect(await balances()).toEqual(after);
      },
    );

    it("a kept response goes only to the very payment that paid for it, once settled", async () => {
      resetFaults();
      const header = await format.sign(`${target.url}/quote`);
      const before = await balances();
      const served = target.served("/quote");
      // /settle never arrives and nothing can tell: the response is kept for a retry.
      Object.assign(format.faults(), { settleMode: "drop", dropStatus: true });
      const first = await send("/quote", header);
      expect(first.status).toBe(503);
      expect(await format.code(first)).toBe("settlement_unknown");
      expect(await balances()).toEqual(before);

      // Its identity is public once it lands; other bytes with the same identity are not the payment.
      resetFaults();
      const forged = await send("/quote", format.forge(header));
      expect(forged.status).toBe(409);
      expect(await format.code(forged)).toBe("payment_in_progress");
      expect(await balances()).toEqual(before);

      const retry = await send("/quote", header);
      expect(retry.status).toBe(200);
      expect(format.receiptOk(retry.headers.get("payment-response"))).toBe(true);
      const after = await balances();
      expect(before.payer - after.payer).toBe(PRICE);
      expect(after.payee - before.payee).toBe(PRICE);
      // The handler ran once, for the first request: the retry got what it had answered.
      expect(target.served("/quote") - served).toBe(1);
    });

    it("settle-before with a chunked body: 411 before anything is reserved, settled or served", async () => {
      resetFaults();
      const payment = await format.sign(`${target.url}/upload`, "POST");
      const before = await balances();
      const settled = format.faults().settled;
      const { status } = await new Promise<{ status: number }>((resolve, reject) => {
        const url = new URL(`${target.url}/upload`);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: { ...format.headers(payment), "transfer-encoding": "chunked" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
          },
        );
        req.on("error", reject);
        req.write("x".repeat(4096));
        req.end("y".repeat(4096));
      });
      expect(status).toBe(411);
      expect(await balances()).toEqual(before);
      expect(format.faults().settled).toBe(settled);
      expect(target.served("/upload")).toBe(0);
    });
  });
});

/** Every hook path (test/fixtures/plugins/pathHooks.mjs acts on the path it is called for). */
const HOOK_PLUGIN = fileURLToPath(new URL("../fixtures/plugins/pathHooks.mjs", import.meta.url));
const HOOK_CASES = [
  { path: "/protected-deny", status: 403, code: "request_denied", served: 0, paid: false },
  { path: "/protected-throws", status: 500, code: "hook_failed", served: 0, paid: false },
  { path: "/verify-abort", status: 402, code: "verification_failed", served: 0, paid: false },
  { path: "/after-verify-abort", status: 402, code: "verification_failed", served: 0, paid: false },
  // Settle-after: the handler ran, its answer is dropped.
  { path: "/settle-abort", status: 402, code: "settlement_failed", served: 1, paid: false },
  { path: "/settle-abort-before", status: 402, code: "settlement_failed", served: 0, paid: false },
  // A hook that throws is logged and skipped, as the official skips it: paid once, served once.
  { path: "/verify-throws", status: 200, code: null, served: 1, paid: true },
  { path: "/settle-throws", status: 200, code: null, served: 1, paid: true },
  // onAfterVerify's skipHandler: settled, answered with the hook's body, the handler never runs.
  { path: "/skip-handler", status: 200, code: null, served: 0, paid: true },
];

function hookedSettings() {
  const base = settings();
  const { price, cbor: cborPrice } = base.routes["GET /quote"];
  const routes: Record<string, { price: typeof price; cbor: typeof cborPrice; settle?: "before" }> = {
    "GET /protected-grant": { price, cbor: cborPrice },
    "GET /settle-skip": { price, cbor: cborPrice },
  };
  for (const { path } of HOOK_CASES)
    routes[`GET ${path}`] = {
      price,
      cbor: cborPrice,
      ...(path.endsWith("-before") ? { settle: "before" } : {}),
    };
  return { ...base, routes };
}

describe.each(CBOR_TARGET_KINDS)("payment hooks on the money path through %s", (kind) => {
  describe.each([json, cbor])("$name payments", (format) => {
    let target: CborTarget;
    beforeAll(async () => {
      target = await startCborTarget(kind, hookedSettings(), Date.now, HOOK_PLUGIN);
    });
    afterAll(async () => target?.stop());
    const balances = async () => ({ payer: await format.payer(), payee: await format.payee() });

    it.each(HOOK_CASES)(
      "$path: $status $code; paid: $paid, handler runs $served time(s); nothing of a failing hook leaks",
      async ({ path, status, code, served, paid }) => {
        Object.assign(format.faults(), { verifyDelayMs: 0, settleMode: "forward", settleDelayMs: 0 });
        // Refused before any offer: paid with one made for another route (what a client holding one would send).
        const offered = path.startsWith("/protected-") ? "/verify-throws" : path;
        const header = await format.sign(`${target.url}${offered}`);
        const before = await balances();
        const settled = format.faults().settled;
        const response = await fetch(`${target.url}${path}`, { headers: format.headers(header) });
        const text = await response.clone().text();
        expect(response.status).toBe(status);
        if (code !== null) expect(await format.code(response)).toBe(code);
        expect(text).not.toContain("secret");
        expect(target.served(path)).toBe(served);
        const after = await balances();
        if (paid) {
          expect(format.receiptOk(response.headers.get("payment-response"))).toBe(true);
          expect(before.payer - after.payer).toBe(PRICE);
          expect(after.payee - before.payee).toBe(PRICE);
          expect(format.faults().settled - settled).toBe(1);
        } else {
          expect(after).toEqual(before);
          expect(format.faults().settled).toBe(settled);
          expect(text).not.toContain(`"path":"${path}"`);
        }
        if (path === "/skip-handler") expect(JSON.parse(text)).toEqual({ refunded: true });
      },
    );

    it("/settle-skip: onBeforeSettle's skip is the operator's settlement (JSON: served, marked spent, nothing moved here); a CBOR one needs the facilitator's receipt: 402, nothing served", async () => {
      const header = await format.sign(`${target.url}/settle-skip`);
      const before = await balances();
      const settled = format.faults().settled;
      const response = await fetch(`${target.url}/settle-skip`, { headers: format.headers(header) });
      expect(await balances()).toEqual(before);
      expect(format.faults().settled).toBe(settled);
      if (format.name === "json") {
        expect(response.status).toBe(200);
        const again = await fetch(`${target.url}/settle-skip`, { headers: format.headers(header) });
        expect(again.status).toBe(402);
        expect(await format.code(again)).toBe("payment_already_used");
      } else {
        expect(response.status).toBe(402);
        expect(await format.code(response)).toBe("settlement_failed");
        expect(await response.text()).not.toContain('"path"');
      }
    });

    it("/protected-grant: onProtectedRequest's grantAccess serves without payment or offer, nothing moves", async () => {
      const before = await balances();
      const settled = format.faults().settled;
      const response = await fetch(`${target.url}/protected-grant`, {
        headers: format.name === "cbor" ? { accept: CBOR } : {},
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("payment-required")).toBeNull();
      expect(target.served("/protected-grant")).toBeGreaterThan(0);
      expect(await balances()).toEqual(before);
      expect(format.faults().settled).toBe(settled);
    });
  });
});
