import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalStack, type LocalStack } from "../../src/dev/startLocalStack.js";
import { PRICE, startPaidApp, type PaidApp } from "./support/startPaidApp.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

let stack: LocalStack;
let app: PaidApp;

beforeAll(async () => {
  stack = await startLocalStack();
  app = await startPaidApp({ stack });
});

afterAll(async () => {
  await app?.stop();
  await stack?.stop();
});

describe("npm run pay", () => {
  it("pays a POST with --data and prints the status, the decoded PAYMENT-RESPONSE, the transaction and the body", async () => {
    const before = await stack.balanceOf(stack.accounts.payee.address);
    const { stdout } = await run(
      tsx,
      ["src/dev/pay.ts", `${app.url}/order`, "--method", "POST", "--data", '{"item":"tea"}'],
      {
        cwd: root,
        env: { ...process.env, EVM_PRIVATE_KEY: stack.accounts.payer.privateKey },
        timeout: 60_000,
      },
    );
    expect(stdout).toContain("status: 200");
    expect(stdout).toMatch(/"success": true/);
    const transaction = /transaction: (0x[0-9a-f]{64})/.exec(stdout)?.[1];
    expect(transaction).toBeDefined();
    const receipt = await stack.publicClient.getTransactionReceipt({ hash: transaction as `0x${string}` });
    expect(receipt.status).toBe("success");
    expect(stdout).toContain('"item": "tea"');
    expect(await stack.balanceOf(stack.accounts.payee.address)).toBe(before + PRICE.order);
  }, 90_000);

  it("refuses an offer above --max-amount and exits non-zero without paying", async () => {
    const before = await stack.balanceOf(stack.accounts.payer.address);
    const failure = await run(tsx, ["src/dev/pay.ts", `${app.url}/quote`, "--max-amount", "1"], {
      cwd: root,
      env: { ...process.env, EVM_PRIVATE_KEY: stack.accounts.payer.privateKey },
      timeout: 60_000,
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain("above --max-amount 1");
    expect(await stack.balanceOf(stack.accounts.payer.address)).toBe(before);
  }, 90_000);

  it("explains EVM_PRIVATE_KEY when it is missing", async () => {
    const env = { ...process.env };
    delete env.EVM_PRIVATE_KEY;
    const failure = await run(tsx, ["src/dev/pay.ts", `${app.url}/quote`], {
      cwd: root,
      env,
      timeout: 60_000,
    }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("EVM_PRIVATE_KEY must be set");
  }, 90_000);
});

describe("npm run demo", () => {
  it("runs the whole flow, prints offer, payment, receipt and balances, and exits by itself", async () => {
    const { stdout } = await run(tsx, ["src/dev/demo.ts"], { cwd: root, timeout: 60_000 });
    expect(stdout).toContain("GET /quote → 402");
    expect(stdout).toContain("PAYMENT-SIGNATURE (decoded)");
    expect(stdout).toMatch(/transaction 0x[0-9a-f]{64}: success/);
    expect(stdout).toContain("payer −0.01 USDC, payee +0.01 USDC");
    expect(stdout).toContain("payment_already_used");
    expect(stdout).toContain("receipt: merchant:x402-demo was_paid 10000 USDC units");
    expect(stdout).toContain("receipt signature: valid");
    expect(stdout).toContain("facilitator books: payer −0.01 USDC, merchant +0.01 USDC");
    expect(stdout).toContain("everything stopped");
  }, 90_000);
});
