import { exec } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
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
      const [printed, command, url] = await waitForLine(
        child,
        /^\s*(EVM_PRIVATE_KEY=0x[0-9a-f]{64} npm run pay -- (http:\/\/127\.0\.0\.1:\d+)\/api\/apy)\s*$[\s\S]*Ctrl-C stops everything/m,
        "the pay command",
      );
      expect(url).toBeDefined();

      const paid = await promisify(exec)(command!, {
        cwd: ROOT,
        env: { ...process.env, npm_config_loglevel: "error" },
      });
      expect(paid.stdout).toContain("status: 200 OK");
      expect(paid.stdout).toMatch(/transaction: 0x[0-9a-f]{64}/);
      expect(paid.stdout).toContain('"aprPercent"');

      const cborCommand =
        /^\s*(npm run pay -- --cbor \S+\/api\/apy --facilitator http:\/\/127\.0\.0\.1:\d+)\s*$/m.exec(
          printed!,
        )?.[1];
      expect(cborCommand).toBeDefined();
      for (const alg of ["ed25519", "ml-dsa-65"]) {
        const cbor = await promisify(exec)(`${cborCommand!} --alg ${alg}`, {
          cwd: ROOT,
          env: { ...process.env, npm_config_loglevel: "error" },
        });
        expect(cbor.stdout).toContain("status: 200 OK");
        expect(cbor.stdout).toContain('"predicate": "was_paid"');
        expect(cbor.stdout).toContain("receipt signature: valid");
        expect(cbor.stdout).toContain('"aprPercent"');
      }

      const quote = await fetch(`${url}/x402-anvil/v1/quote`);
      expect(quote.status).toBe(402);
      const offer = (await quote.json()) as {
        accepts: { amount: string }[];
        resource: { description: string };
      };
      expect(offer.accepts[0]?.amount).toBe("1000000");
      expect(offer.resource.description).toMatch(/Local demo only/);
    } finally {
      child.kill("SIGINT");
    }
    const result = await done;
    expect(result.stdout).toContain("stopped.");
    expect(result.code).toBe(0);
  }, 120_000);
});
