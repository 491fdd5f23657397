import { exec } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createPublicClient, http, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { testUSDCAbi } from "../../src/dev/testUSDCAbi.js";
import { collect, ROOT, spawnCli, waitForLine } from "./support/runCli.js";

// Long enough that the check right after the payment runs inside it (it takes milliseconds);
// the test then waits for the recording by asking again, never for a fixed time.
const RECORD_DELAY_MS = 10_000;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one printed command in the repository, as a user pastes it; never rejects. */
async function run(line: string, env: Record<string, string> = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await promisify(exec)(line, {
      cwd: ROOT,
      env: { ...process.env, npm_config_loglevel: "error", ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs a printed recognize command until it answers 0x1 (each answer 0x0 or 0x1); the answers. */
async function askUntilRecorded(command: string): Promise<string[]> {
  const answers: string[] = [];
  while (answers.at(-1) !== "0x1") {
    const asked = await run(command);
    expect(asked.code).toBe(0);
    answers.push(asked.stdout.trim());
    expect(["0x0", "0x1"]).toContain(answers.at(-1));
  }
  return answers;
}

function line(banner: string, pattern: RegExp, what: string): RegExpExecArray {
  const match = pattern.exec(banner);
  if (match === null) throw new Error(`the banner has no ${what}:\n${banner}`);
  return match;
}

describe("npm start: the seed's loop end to end", () => {
  it("pay → 0x0 right after → 0x1 → sign in without paying; an unpaid payer gets 402; a revocation drops the payer", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-loop-"));
    const child = spawnCli("src/cli/start.ts", ["--data", join(dir, "staking.sqlite")], {
      X402_GATEWAY_PORT: "0",
      X402_RECORD_DELAY_MS: String(RECORD_DELAY_MS),
      LOG_LEVEL: "warn",
    });
    const done = collect(child);
    try {
      const [banner] = await waitForLine(
        child,
        /x402 gateway ready[\s\S]*The seed's loop[\s\S]*Ctrl-C stops everything/,
        "the loop",
      );
      const text = banner!;
      // The two banner lines, in the issue's form.
      const [, rpcUrl] = line(
        text,
        /^ {2}layer-2 node {5}((http:\/\/127\.0\.0\.1:\d+)\/rpc\/v0_10) {2}\(local stand-in for a Starknet node\)$/m,
        "layer-2 node line",
      );
      const [, contract, routeKey] = line(
        text,
        /^ {2}recognition {6}contract (0x[0-9a-f]+) est_ouverte; route (GET \/\S+)$/m,
        "recognition line",
      );
      const [, gatewayUrl] = line(text, /^ {2}gateway {10}(http:\/\/127\.0\.0\.1:\d+)$/m, "gateway line");
      const [, anvilUrl] = line(text, /^ {2}anvil {12}(http:\/\/127\.0\.0\.1:\d+)$/m, "anvil line");
      const [, token, payee] = line(
        text,
        /^ {2}token {12}TestUSDC (0x[0-9a-fA-F]{40}) .*payee (0x[0-9a-fA-F]{40})$/m,
        "token line",
      );
      const routeUrl = `${gatewayUrl}${routeKey!.slice("GET ".length)}`;

      const [, payCommand] = line(
        text,
        /^\s+(EVM_PRIVATE_KEY=0x[0-9a-f]{64} npm run pay -- (\S+))$/m,
        "pay command",
      );
      const payOnce = line(
        text,
        new RegExp(`^\\s+(EVM_PRIVATE_KEY=0x[0-9a-f]{64} npm run pay -- ${routeUrl})$`, "m"),
        "the loop's pay command",
      )[1]!;
      expect(payCommand).toBeDefined();
      const [, recognize, payer] = line(
        text,
        /^\s+(npm run -s x402-gateway -- recognize (0x[0-9a-fA-F]{40}) --rpc (\S+) --contract (0x[0-9a-f]+))$/m,
        "recognize command",
      );
      // The layer-2 node exactly as the banner prints it.
      expect(recognize).toContain(`--rpc ${rpcUrl} --contract ${contract}`);
      const [, curl] = line(text, /^\s+(curl -s -X POST \S+\/rpc\/v0_10 -d '.*')$/m, "curl command");
      const [, signIn] = line(
        text,
        /^\s+(EVM_PRIVATE_KEY=0x[0-9a-f]{64} npm run pay -- --sign-in (\S+))$/m,
        "sign-in",
      );
      expect(signIn).toContain(routeUrl);
      const [, revoke] = line(
        text,
        /^\s+(curl -s -X POST \S+\/_x402\/admin\/revocations .*)$/m,
        "revoke command",
      );

      // The 402 of the recognized route names this node and this contract.
      const offer = await fetch(routeUrl);
      expect(offer.status).toBe(402);
      const offered = (await offer.json()) as { extensions: Record<string, Record<string, unknown>> };
      expect(offered.extensions["starknet-recognition"]?.info).toMatchObject({
        rpcUrl,
        contractAddress: contract,
        entryPoint: "est_ouverte",
      });
      expect(offered.extensions["sign-in-with-x"]).toBeDefined();

      const chain = createPublicClient({ transport: http(anvilUrl) });
      const payeeBalance = () =>
        chain.readContract({
          address: token as Hex,
          abi: testUSDCAbi,
          functionName: "balanceOf",
          args: [payee as Hex],
        });
      const start = await payeeBalance();

      // Before paying: the sign-in is refused (402), nothing is paid.
      const early = await run(signIn!);
      expect(early.code).toBe(1);
      expect(early.stdout).toContain("status: 402 Payment Required");
      expect(early.stdout).toContain("PAYMENT-SIGNATURE sent: no");
      expect(await payeeBalance()).toBe(start);

      // 1. Pay once: 200 with a settled payment.
      const paid = await run(payOnce);
      expect(paid.stdout).toContain("status: 200 OK");
      expect(paid.stdout).toMatch(/transaction: 0x[0-9a-f]{64}/);
      expect(paid.stdout).toContain('"kind": "APY"');
      expect(await payeeBalance()).toBe(start + 1000n);

      // 2. Right after paying: 0x0 (the printed curl, the held-out style check); 0x1 once recorded.
      expect((await run(curl!)).stdout).toBe('{"jsonrpc":"2.0","id":1,"result":["0x0"]}');
      const answers = await askUntilRecorded(recognize!);
      expect(answers.indexOf("0x1")).toBe(answers.length - 1); // 0x0 … 0x0, then 0x1 and it stays
      expect((await run(curl!)).stdout).toBe('{"jsonrpc":"2.0","id":1,"result":["0x1"]}');

      // 3. Sign in without paying: 200, no PAYMENT-SIGNATURE, no new settlement.
      const signedIn = await run(signIn!);
      expect(signedIn.code).toBe(0);
      expect(signedIn.stdout).toContain(`payer: ${payer}`);
      expect(signedIn.stdout).toContain("status: 200 OK");
      expect(signedIn.stdout).toContain("PAYMENT-SIGNATURE sent: no");
      expect(signedIn.stdout).toContain('"kind": "APY"');
      expect(await payeeBalance()).toBe(start + 1000n);

      // The same loop in application/x402+cbor, signed by the layer-2 dev account: recorded as that account.
      const [, payCbor] = line(
        text,
        new RegExp(`^\\s+(npm run pay -- --cbor ${routeUrl} --signer starknet --facilitator \\S+)$`, "m"),
        "the loop's CBOR pay command",
      );
      const [, recognizeAccount, account] = line(
        text,
        /^\s+(npm run -s x402-gateway -- recognize (0x[0-9a-f]{41,64}) --rpc \S+ --contract (0x[0-9a-f]+))$/m,
        "the CBOR payer's recognize command",
      );
      expect(recognizeAccount).toContain(`--rpc ${rpcUrl} --contract ${contract}`);
      expect((await run(recognizeAccount!)).stdout.trim()).toBe("0x0");
      const paidCbor = await run(payCbor!);
      expect(paidCbor.stdout).toContain(`payer: starknet-account:0x${account!.slice(2).padStart(64, "0")}`);
      expect(paidCbor.stdout).toContain("status: 200 OK");
      expect(paidCbor.stdout).toMatch(/"kind": ?"APY"/);
      expect((await run(recognizeAccount!)).stdout.trim()).toBe("0x0");
      expect((await askUntilRecorded(recognizeAccount!)).at(-1)).toBe("0x1");
      // The JSON payment moved TestUSDC; the CBOR one moved the CBOR facilitator's books, not the token.
      expect(await payeeBalance()).toBe(start + 1000n);

      // A different payer who never paid: 0x0 and 402.
      const stranger = devAccount(5);
      const strangerSignIn = signIn!.replace(
        /EVM_PRIVATE_KEY=0x[0-9a-f]{64}/,
        `EVM_PRIVATE_KEY=${stranger.privateKey}`,
      );
      const refused = await run(strangerSignIn);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(`payer: ${stranger.address}`);
      expect(refused.stdout).toContain("status: 402 Payment Required");
      expect((await run(recognize!.replace(payer!, stranger.address))).stdout.trim()).toBe("0x0");

      // A refund's revocation drops the payer at once, whatever the chain still says.
      const revoked = await run(revoke!);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ revoked: true, payer: payer!.toLowerCase() });
      expect((await run(recognize!)).stdout.trim()).toBe("0x1");
      const afterRevoke = await run(signIn!);
      expect(afterRevoke.code).toBe(1);
      expect(afterRevoke.stdout).toContain("status: 402 Payment Required");
      expect(await payeeBalance()).toBe(start + 1000n);
    } finally {
      child.kill("SIGINT");
    }
    const result = await done;
    expect(result.stdout).toContain("stopped.");
    expect(result.code).toBe(0);
  }, 240_000);
});
