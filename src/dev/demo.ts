import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { decodePaymentResponseHeader } from "@x402/fetch";
import { formatUnits, type Hex } from "viem";
import { decodeBase64Json, x402 } from "../index.js";
import { createPayingFetch } from "./createPayingFetch.js";
import { startLocalStack, type LocalStack } from "./startLocalStack.js";
import { CBOR_DEV_BALANCES, cborDevPayer } from "./cborDevPayers.js";
import { startCborFacilitator, type RunningCborFacilitator } from "./startCborFacilitator.js";
import { payCborRoute } from "../payer/payCborRoute.js";
import { decodeQuantifiedClaim } from "../protocol/cbor/Claim.js";
import { payerIdOf } from "../protocol/cbor/signatures.js";
import { verifyReceipt } from "../protocol/cbor/verifyReceipt.js";

// `npm run demo`: one paid request through the whole local stack, printed step by step.

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const step = (title: string) => console.log(`\n── ${title} ${"─".repeat(Math.max(0, 70 - title.length))}`);
const json = (value: unknown) => JSON.stringify(value, null, 2);

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (server === undefined || !server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function main(): Promise<void> {
  let stack: LocalStack | undefined;
  let cborFacilitator: RunningCborFacilitator | undefined;
  let upstream: Server | undefined;
  let gateway: Server | undefined;
  const cleanUp = async () => {
    await close(gateway);
    await close(upstream);
    await cborFacilitator?.stop();
    await stack?.stop();
  };
  // Killed mid-run (Ctrl-C, SIGTERM): still stop anvil rather than leave it running.
  const onSignal = (signal: NodeJS.Signals) => {
    // process.exit (not a re-raised signal) runs the `exit` hooks that kill an anvil still starting up.
    void cleanUp().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    step("1. local chain, token and facilitator");
    stack = await startLocalStack({ log: (line) => console.log(`  ${line}`) });
    const { payer, payee, facilitator } = stack.accounts;
    console.log(`  payer        ${payer.address}  (anvil dev account 1)`);
    console.log(`  payee        ${payee.address}  (anvil dev account 2)`);
    console.log(`  facilitator  ${facilitator.address}  (anvil dev account 0)`);
    console.log(
      '  These are anvil\'s public test keys (mnemonic "test test … junk"): never send real funds to them.',
    );

    const cborPayer = cborDevPayer("ed25519");
    cborFacilitator = await startCborFacilitator({
      accounts: [{ publicKey: cborPayer.publicKey, balances: CBOR_DEV_BALANCES }],
      log: (line) => console.log(`  ${line}`),
    });

    step("2. upstream API and the x402() paywall in front of it");
    const api = express();
    api.get(
      "/quote",
      (_req, res) => void res.json({ pair: "ETH/USDC", price: "3150.25", at: new Date().toISOString() }),
    );
    const upstreamServer = await listen(api);
    upstream = upstreamServer.server;
    const token = stack.token;
    const app = express();
    app.use(
      x402({
        facilitator: { url: stack.facilitatorUrl },
        payTo: payee.address,
        network: "eip155:31337",
        assets: [
          {
            network: "eip155:31337",
            address: token.address,
            decimals: 6,
            name: token.name,
            version: token.version,
          },
        ],
        cbor: { merchantPseudonym: "merchant:x402-demo", facilitator: { url: cborFacilitator.url } },
        routes: {
          "GET /quote": {
            price: "$0.01",
            cbor: { currency: "USDC", amount: "10000" },
            description: "ETH/USDC price quote",
          },
        },
      }),
    );
    app.get("/quote", async (_req, res) => {
      const answer = await fetch(`${upstreamServer.url}/quote`);
      res.status(answer.status).json(await answer.json());
    });
    const gatewayServer = await listen(app);
    gateway = gatewayServer.server;
    const url = `${gatewayServer.url}/quote`;
    console.log(`  upstream  ${upstreamServer.url}/quote (free)`);
    console.log(`  gateway   ${url} (GET /quote costs $0.01 = 10000 TestUSDC units)`);

    const balances = async () => ({
      payer: await stack!.balanceOf(payer.address),
      payee: await stack!.balanceOf(payee.address),
    });
    const show = (label: string, b: { payer: bigint; payee: bigint }) =>
      console.log(
        `  ${label.padEnd(7)} payer ${formatUnits(b.payer, 6).padStart(12)} USDC   payee ${formatUnits(b.payee, 6).padStart(10)} USDC`,
      );
    const before = await balances();
    step("3. on-chain balances before");
    show("before", before);

    step("4. unpaid request → 402 offer (PAYMENT-REQUIRED, decoded)");
    const unpaid = await fetch(url);
    console.log(`  GET /quote → ${unpaid.status}`);
    const offerHeader = unpaid.headers.get("payment-required");
    console.log(json(offerHeader === null ? await unpaid.json() : decodeBase64Json(offerHeader)));

    step("5. the official client pays (@x402/fetch + @x402/evm exact)");
    const sent: string[] = [];
    const paying = createPayingFetch({
      privateKey: payer.privateKey,
      allowedAssets: [{ network: "eip155:31337", asset: token.address }],
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const signature = request.headers.get("payment-signature");
        if (signature !== null) sent.push(signature);
        return fetch(request);
      },
    });
    const paid = await paying.fetch(url);
    if (sent[0] !== undefined) {
      console.log("  PAYMENT-SIGNATURE (decoded):");
      console.log(json(decodeBase64Json(sent[0])));
    }

    step("6. paid response and receipt (PAYMENT-RESPONSE, decoded)");
    console.log(`  GET /quote → ${paid.status}`);
    console.log(`  body: ${JSON.stringify(await paid.json())}`);
    const receiptHeader = paid.headers.get("payment-response");
    if (receiptHeader === null) throw new Error(`no PAYMENT-RESPONSE (status ${paid.status})`);
    const receipt = decodePaymentResponseHeader(receiptHeader);
    console.log(json(receipt));
    const mined = await stack.publicClient.getTransactionReceipt({ hash: receipt.transaction as Hex });
    console.log(
      `  transaction ${receipt.transaction}: ${mined.status} in block ${mined.blockNumber}, gas ${mined.gasUsed}`,
    );

    step("7. on-chain balances after");
    const after = await balances();
    show("before", before);
    show("after", after);
    console.log(
      `  payer −${formatUnits(before.payer - after.payer, 6)} USDC, payee +${formatUnits(after.payee - before.payee, 6)} USDC`,
    );

    step("8. the same PAYMENT-SIGNATURE again");
    const replay = await fetch(url, { headers: { "PAYMENT-SIGNATURE": sent[0] ?? "" } });
    const replayBody = (await replay.json()) as { error?: string; message?: string };
    console.log(`  GET /quote → ${replay.status} ${replayBody.error}: ${replayBody.message}`);

    step("9. the same route in application/x402+cbor (this project's v0.3 profile)");
    console.log(`  payer ${payerIdOf(cborPayer.publicKey)} (Ed25519 demo test key)`);
    const facilitatorBooks = () => ({
      payer: cborFacilitator!.payerBalance(cborPayer.publicKey, "USDC") ?? 0n,
      merchant: cborFacilitator!.merchantBalance("merchant:x402-demo", "USDC"),
    });
    const cborBefore = facilitatorBooks();
    const cborPaid = await payCborRoute(url, { key: cborPayer });
    console.log(`  GET /quote (Accept: application/x402+cbor) → ${cborPaid.offeredStatus}, offer:`);
    console.log(json({ ...cborPaid.payment?.request, amount: cborPaid.payment?.request.amount.toString() }));
    console.log(
      "  POST /quote with the signed intent; stark_proof = STAND-IN (SHA-256 binding), not a STARK proof",
    );
    console.log(`  → ${cborPaid.response.status}, body: ${JSON.stringify(await cborPaid.response.json())}`);
    if (cborPaid.receipt === undefined)
      throw new Error(`no CBOR receipt (status ${cborPaid.response.status})`);
    const cborClaim = decodeQuantifiedClaim(cborPaid.receipt.claim);
    console.log(
      `  receipt: ${cborClaim.object} ${cborClaim.predicate} ${cborClaim.quantity.amount} ${cborClaim.quantity.currency} units at ${new Date(cborClaim.time * 1000).toISOString()}`,
    );
    const verdict = verifyReceipt(cborPaid.receipt, cborFacilitator.receiptKey);
    console.log(
      `  receipt signature: ${verdict.valid ? "valid" : `INVALID (${verdict.reason})`} (facilitator's key)`,
    );
    const cborAfter = facilitatorBooks();
    console.log(
      `  facilitator books: payer −${formatUnits(cborBefore.payer - cborAfter.payer, 6)} USDC, merchant +${formatUnits(cborAfter.merchant - cborBefore.merchant, 6)} USDC`,
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await cleanUp();
    console.log(`\ndone in ${elapsed()}, everything stopped.`);
  }
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
