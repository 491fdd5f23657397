import { exec } from "node:child_process";
import { mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { collect, ROOT, spawnCli, waitForLine } from "./support/runCli.js";

describe("npm start", () => {
  it("starts the whole stack, the printed pay command pays, and Ctrl-C stops everything", async () => {
    const dir = await mkdtemp(join(tmpdir(), "gw-start-"));
    const child = spawnCli("src/cli/start.ts", ["--data", join(dir, "staking.sqlite")], {
      X402_GATEWAY_PORT: "0",
    });
    const done = collect(child);
    try {
      const [banner, command, url] = await waitForLine(
        child,
        /Priced routes[\s\S]*?^\s*(EVM_PRIVATE_KEY=0x[0-9a-f]{64} npm run pay -- (http:\/\/127\.0\.0\.1:\d+)\/api\/apy)\s*$[\s\S]*Ctrl-C stops everything/m,
        "the pay command",
      );
      expect(url).toBeDefined();
      expect(banner).toMatch(/GET \/x402-anvil\/v1\/quote\s+1 TestUSDC \(1000000 units, exact or exact-pq\)/);
      const run = (line: string) =>
        promisify(exec)(line, { cwd: ROOT, env: { ...process.env, npm_config_loglevel: "error" } });

      const paid = await run(command!);
      expect(paid.stdout).toContain("status: 200 OK");
      expect(paid.stdout).toMatch(/transaction: 0x[0-9a-f]{64}/);
      expect(paid.stdout).toContain('"apyPercent"');

      // The Solana pay command: the official @x402/svm client pays GET /api/apy on the LOCAL engine.
      const solanaCommand =
        /^\s*(SOLANA_RPC_URL=http:\/\/127\.0\.0\.1:\d+ npm run pay -- --solana --keypair (\S+) \S+\/api\/apy)\s*$/m.exec(
          banner!,
        );
      expect(solanaCommand).not.toBeNull();
      expect((await stat(solanaCommand![2]!)).mode & 0o777).toBe(0o600);
      const solanaPaid = await run(solanaCommand![1]!);
      expect(solanaPaid.stdout).toContain("paying: exact 1000 on solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
      expect(solanaPaid.stdout).toContain("status: 200 OK");
      expect(solanaPaid.stdout).toMatch(/^transaction: [1-9A-HJ-NP-Za-km-z]{80,90}$/m);
      expect(solanaPaid.stdout).toContain('"apyPercent"');

      // The README's @x402/fetch snippet (examples/fetch-client.ts), run as the banner prints it.
      const fetchCommand =
        /^\s*(EVM_PRIVATE_KEY=0x[0-9a-f]{64} X402_ASSET=0x[0-9a-fA-F]{40} X402_URL=\S+\/api\/apy npx tsx examples\/fetch-client\.ts)\s*$/m.exec(
          banner!,
        )?.[1];
      expect(fetchCommand).toBeDefined();
      const official = await run(fetchCommand!);
      expect(official.stdout).toMatch(/^200 \{.*"apyPercent"/m);
      expect(official.stdout).toMatch(/^settled: 0x[0-9a-f]{64}$/m);

      // The demo quote route: the two printed commands pay it, one with each scheme.
      const quoteCommands = [
        ...banner!.matchAll(
          /^\s*(EVM_PRIVATE_KEY=\S+ npm run pay -- --scheme (\S+) \S+\/x402-anvil\/v1\/quote)\s*$/gm,
        ),
      ];
      expect(quoteCommands.map((match) => match[2])).toEqual(["exact", "exact-pq"]);
      const transactions = new Set<string>();
      for (const [, line, scheme] of quoteCommands) {
        const quotePaid = await run(line!);
        expect(quotePaid.stdout).toContain(`paying: ${scheme} 1000000 on eip155:31337`);
        expect(quotePaid.stdout).toContain("status: 200 OK");
        transactions.add(/transaction: (0x[0-9a-f]{64})/.exec(quotePaid.stdout)?.[1] ?? "");
      }
      expect(transactions.size).toBe(2);
      expect(transactions.has("")).toBe(false);

      const cborCommand =
        /^\s*(npm run pay -- --cbor \S+\/api\/apy --facilitator http:\/\/127\.0\.0\.1:\d+)\s*$/m.exec(
          banner!,
        )?.[1];
      expect(cborCommand).toBeDefined();
      const refundCommand =
        /^\s*(npm run refund -- --facilitator http:\/\/127\.0\.0\.1:\d+ --merchant-token-file \S+) </m.exec(
          banner!,
        )?.[1];
      expect(refundCommand).toBeDefined();
      // The merchant's refund token: owner-only, next to the data.
      const tokenFile = /--merchant-token-file (\S+)/.exec(refundCommand!)![1]!;
      expect(tokenFile).toBe(join(dir, "cbor-merchant.token"));
      expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
      // The demo payer itself, then as the root of a demo delegation chain to a fresh agent key.
      for (const flags of [
        "--alg ed25519",
        "--alg ml-dsa-65",
        "--signer starknet",
        "--alg ed25519 --delegate",
      ]) {
        const cbor = await promisify(exec)(`${cborCommand!} ${flags}`, {
          cwd: ROOT,
          env: { ...process.env, npm_config_loglevel: "error" },
        });
        expect(cbor.stdout).toContain("status: 200 OK");
        expect(cbor.stdout).toContain('"predicate": "was_paid"');
        expect(cbor.stdout).toContain("receipt signature: valid");
        expect(cbor.stdout).toContain('"apyPercent"');
        // The layer-2 dev account's SNIP-12 intent, checked by its is_valid_signature on the stand-in.
        if (flags === "--signer starknet")
          expect(cbor.stdout).toMatch(/^payer: starknet-account:0x[0-9a-f]{64} \(LayerTwoSigner/m);
        if (flags.endsWith("--delegate"))
          expect(cbor.stdout).toMatch(/^agent: ed25519:[0-9a-f]{64} \(fresh key\)/m);
        if (flags.endsWith("--delegate")) continue;
        // The printed refund command refunds the receipt once, then refuses it.
        const receipt = /receipt \(base64, for npm run refund\): (\S+)/.exec(cbor.stdout)?.[1];
        expect(receipt).toBeDefined();
        const refunded = await run(`${refundCommand!} ${receipt!}`);
        expect(refunded.stdout).toMatch(/revocation: revokes sha256:[0-9a-f]{64}, refunded 1000 USDC units/);
        expect(refunded.stdout).toContain(
          "receipt revoked (GET /revocations, facilitator key from /supported): yes",
        );
        await expect(run(`${refundCommand!} ${receipt!}`)).rejects.toMatchObject({
          stderr: expect.stringContaining("refused: 409 already_refunded"),
        });
      }

      // The humanity-gated route: the printed command fetches a DEMO claim and pays; without one, refused.
      const gatedCommand =
        /^\s*(npm run pay -- --cbor \S+\/api\/metrics\/validator --facilitator http:\/\/127\.0\.0\.1:\d+)\s*$/m.exec(
          banner!,
        )?.[1];
      expect(gatedCommand).toBeDefined();
      const gated = await run(gatedCommand!);
      expect(gated.stdout).toContain('"acceptsHumanityGate": true');
      expect(gated.stdout).toMatch(/humanity_claim: from http:\/\/127\.0\.0\.1:\d+\/humanity/);
      expect(gated.stdout).toContain("status: 200 OK");
      expect(gated.stdout).toContain("receipt signature: valid");
      const ungated = await run(gatedCommand!.replace(/ --facilitator \S+/, "")).then(
        () => "paid",
        (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
      );
      expect(ungated).toMatch(/--facilitator \(its demo issuer\) or --humanity/);

      // The masked CBOR route: the payer's key sealed to the facilitator, the receipt opened by the payer.
      const maskedCommand =
        /^\s*(npm run pay -- --cbor \S+\/x402-anvil\/v1\/quote --facilitator http:\/\/127\.0\.0\.1:\d+)\s*$/m.exec(
          banner!,
        )?.[1];
      expect(maskedCommand).toBeDefined();
      const masked = await run(maskedCommand!);
      expect(masked.stdout).toMatch(
        /revelation mask mask:v0\.3:sha256:[0-9a-f]{64}: hid subject \(Encrypted\), time \(ZK\)/,
      );
      expect(masked.stdout).toContain("status: 200 OK");
      expect(masked.stdout).toContain("PAYMENT-RESPONSE (RestrictedReceipt: the mask hides subject)");
      expect(masked.stdout).toContain("receipt signature: valid");

      const quote = await fetch(`${url}/x402-anvil/v1/quote`);
      expect(quote.status).toBe(402);
      const offer = (await quote.json()) as {
        accepts: { amount: string; scheme: string }[];
        resource: { description: string };
      };
      expect(offer.accepts.map((option) => [option.scheme, option.amount])).toEqual([
        ["exact", "1000000"],
        ["exact-pq", "1000000"],
      ]);
      expect(offer.resource.description).toMatch(/Local demo only/);
    } finally {
      child.kill("SIGINT");
    }
    const result = await done;
    expect(result.stdout).toContain("stopped.");
    // A terminal's log format: readable lines (the paid requests above were logged), no JSON objects.
    expect(result.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}request .*path=\/api\/apy .*status=200/m);
    expect(result.stdout).not.toMatch(/^\{"level":/m);
    expect(result.stdout).toMatch(/^\s*POST \/api\/stake\s.*settles first, then runs\s*$/m);
    expect(result.stdout).toMatch(/^\s*GET \/api\/apy\s.*runs, settles on 2xx\s*$/m);
    expect(result.code).toBe(0);
  }, 240_000);
});
