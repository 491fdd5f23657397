import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
};

/** `./dist/a/b.js` is built from `./src/a/b.ts`. */
const sourceOf = (built: string): URL =>
  new URL(`../../${built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")}`, import.meta.url);

describe("package.json", () => {
  it("maps every export and bin to a source file that exists", () => {
    const targets = [
      ...Object.values(pkg.exports).flatMap((target) => (typeof target === "string" ? [] : [target.default])),
      ...Object.values(pkg.bin),
    ];
    expect(targets.length).toBeGreaterThan(3);
    for (const target of targets) expect(existsSync(sourceOf(target)), target).toBe(true);
  });

  it("exposes the middleware, the gateway, the staking backend and recognition as entry points", async () => {
    const root = await import("../../src/index.js");
    const gateway = await import("../../src/gateway.js");
    const staking = await import("../../src/staking/index.js");
    const recognition = await import("../../src/recognition/index.js");
    expect(typeof recognition.createSignInGate).toBe("function");
    expect(typeof recognition.StarknetRecognizer).toBe("function");
    expect(typeof root.x402).toBe("function");
    expect(typeof root.x402Node).toBe("function");
    expect(typeof root.assemblePaymentFlow).toBe("function");
    expect(typeof gateway.createGateway).toBe("function");
    expect(typeof gateway.listenGateway).toBe("function");
    expect(typeof gateway.loadConfig).toBe("function");
    expect(typeof staking.createStakingBackend).toBe("function");
  });
});
