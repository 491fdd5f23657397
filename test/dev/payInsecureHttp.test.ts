import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../src/dev/devAccounts.js";
import { runCli } from "../cli/support/runCli.js";
import { nonLoopbackAddress } from "../payer/support/nonLoopbackAddress.js";
import { startRecordingPayee, type RecordingPayee } from "../payer/support/startRecordingPayee.js";

// Issue 31, item 6, through the command users run: `npm run pay` against a payee at this machine's own
// non-loopback address (a real listener that records what reaches it), over plain HTTP.
const address = nonLoopbackAddress();
const env = { EVM_PRIVATE_KEY: devAccount(1).privateKey };
let payee: RecordingPayee;
let base: string;

beforeAll(async () => {
  payee = await startRecordingPayee();
  base = `http://${address}:${payee.port}`;
});

afterAll(async () => {
  await payee.close();
});

describe.skipIf(address === undefined)(
  "npm run pay over plain HTTP off loopback (skipped when this machine has no non-loopback IPv4 address)",
  { timeout: 120_000 },
  () => {
    it("JSON, --sign-in and --cbor: refused, and nothing signed reaches the payee", async () => {
      const runs = await Promise.all([
        runCli("src/dev/pay.ts", [`${base}/json/eip155:84532`], env),
        runCli("src/dev/pay.ts", ["--sign-in", `${base}/json/eip155:84532`], env),
        runCli("src/dev/pay.ts", ["--cbor", `${base}/cbor`]),
      ]);
      for (const run of runs) {
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          /refused to send a payment or a sign-in over plain HTTP to .*TLS is mandatory/,
        );
      }
      expect(payee.requests.length).toBeGreaterThanOrEqual(3);
      expect(payee.signed()).toEqual([]);
    });

    it("--allow-insecure-http pays a test network; a mainnet offer, or --cbor with it, is refused", async () => {
      const before = payee.signed().length;
      const [test, mainnet, cbor] = await Promise.all([
        runCli("src/dev/pay.ts", ["--allow-insecure-http", `${base}/json/eip155:84532`], env),
        runCli("src/dev/pay.ts", ["--allow-insecure-http", `${base}/json/eip155:8453`], env),
        runCli("src/dev/pay.ts", ["--cbor", "--allow-insecure-http", `${base}/cbor`]),
      ]);
      expect(test.stdout).toContain("status: 200 OK");
      expect(test.code).toBe(0);
      expect(mainnet.code).toBe(1);
      expect(mainnet.stderr).toMatch(/test networks only, and eip155:8453 is not one/);
      expect(cbor.code).toBe(2);
      expect(cbor.stderr).toMatch(/--allow-insecure-http is for EVM test networks/);
      expect(
        payee
          .signed()
          .slice(before)
          .map((request) => request.path),
      ).toEqual(["/json/eip155:84532"]);
    });
  },
);
