import { describe, expect, it } from "vitest";
import { startAnvil } from "../../src/dev/startAnvil.js";
import { devAccount } from "../../src/dev/devAccounts.js";

describe("startAnvil", () => {
  it("starts anvil on a free loopback port with the dev accounts, and stop() ends the process", async () => {
    const node = await startAnvil();
    try {
      expect(node.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await node.publicClient.getChainId()).toBe(31337);
      expect(node.chain.id).toBe(31337);
      const balance = await node.publicClient.getBalance({ address: devAccount(1).address });
      expect(balance).toBe(10_000n * 10n ** 18n);
    } finally {
      await node.stop();
    }
    expect(() => process.kill(node.pid, 0)).toThrow();
    await expect(fetch(node.rpcUrl, { method: "POST", body: "{}" })).rejects.toThrow();
    await node.stop();
  });

  it("runs two chains side by side on different ports", async () => {
    const [a, b] = await Promise.all([startAnvil(), startAnvil()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(await b.publicClient.getBlockNumber()).toBe(0n);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
