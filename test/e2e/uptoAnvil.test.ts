import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { PERMIT2_ADDRESS } from "../../src/dev/installContractAt.js";
import { x402Node } from "../../src/index.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { listenOnLoopback, type LoopbackServer } from "../support/listenOnLoopback.js";

/**
 * Metered `upto` on anvil with the official facilitator: the payer signs a Permit2 authorization for at
 * most 0.05 TestUSDC, the handler reports what it used, the chain moves exactly that (or nothing).
 * Permit2 and the upto proxy are the local stand-ins installed at their canonical addresses.
 */
const MAX = 50_000n;
let stack: LocalStack;
let server: LoopbackServer;

beforeAll(async () => {
  stack = await startLocalStack({ schemes: ["exact", "upto"] });
  const payer = privateKeyToAccount(stack.accounts.payer.privateKey);
  const wallet = createWalletClient({ account: payer, chain: stack.chain, transport: http(stack.rpcUrl) });
  const hash = await wallet.writeContract({
    address: stack.token.address,
    abi: parseAbi(["function approve(address spender, uint256 value) returns (bool)"]),
    functionName: "approve",
    args: [PERMIT2_ADDRESS, 2n ** 255n],
  });
  await stack.publicClient.waitForTransactionReceipt({ hash });
  const paywall = x402Node({
    facilitator: { url: stack.facilitatorUrl, timeoutMs: 20_000, settleTimeoutMs: 30_000 },
    payTo: stack.accounts.payee.address,
    network: stack.network,
    routes: {
      "GET /complete/:cost": {
        scheme: "upto",
        price: {
          amount: MAX.toString(),
          asset: stack.token.address,
          extra: {
            name: stack.token.name,
            version: stack.token.version,
            assetTransferMethod: "permit2",
            facilitatorAddress: stack.accounts.facilitator.address,
          },
        },
      },
    },
  });
  server = await listenOnLoopback(
    paywall.wrap((req, res) => {
      const cost = (req.url ?? "").split("/").pop() ?? "0";
      if (cost !== "0") res.setHeader("X402-Usage", cost);
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ cost }));
    }),
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  await stack?.stop();
});

const balances = async () => ({
  payer: await stack.balanceOf(stack.accounts.payer.address),
  payee: await stack.balanceOf(stack.accounts.payee.address),
});

function client(): typeof fetch {
  const account = privateKeyToAccount(stack.accounts.payer.privateKey);
  const payer = new x402Client().register("eip155:*", new UptoEvmScheme(account));
  payer.setSpendControls({ allowedAssets: [{ network: stack.network, asset: stack.token.address }] });
  return wrapFetchWithPayment(fetch, new x402HTTPClient(payer));
}

describe("upto on anvil with the official facilitator", () => {
  it("settles exactly the reported usage, below the authorization; balances move by it", async () => {
    const before = await balances();
    const res = await client()(`${server.url}/complete/12345`);
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json(res.headers.get("payment-response") as string) as {
      amount: string;
      transaction: string;
    };
    expect(receipt.amount).toBe("12345");
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const after = await balances();
    expect(before.payer - after.payer).toBe(12_345n);
    expect(after.payee - before.payee).toBe(12_345n);
  }, 60_000);

  it("nothing used moves nothing", async () => {
    const before = await balances();
    const res = await client()(`${server.url}/complete/0`);
    expect(res.status).toBe(200);
    expect(await balances()).toEqual(before);
  }, 60_000);

  it("a report above the authorization moves nothing and is not served", async () => {
    const before = await balances();
    const res = await client()(`${server.url}/complete/${MAX + 1n}`);
    expect(res.status).toBe(502);
    expect(await balances()).toEqual(before);
  }, 60_000);
});
