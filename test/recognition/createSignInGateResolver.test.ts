import { describe, expect, it } from "vitest";
import { createSignInGateResolver } from "../../src/recognition/createSignInGateResolver.js";

const global = { rpcUrl: "https://rpc.example.com", contract: "0x1" };
const own = { rpcUrl: "https://other.example.com", contract: "0x2", negativeTtlMs: 1_000 };

describe("createSignInGateResolver", () => {
  it("gives a route its own gate, else the global one, and none for false", () => {
    const resolve = createSignInGateResolver(global);
    const byDefault = resolve(undefined);
    expect(byDefault).toBeDefined();
    expect(resolve(undefined)).toBe(byDefault);
    expect(resolve({ contract: "0x1", rpcUrl: "https://rpc.example.com" })).toBe(byDefault);
    const routeOwn = resolve(own);
    expect(routeOwn).toBeDefined();
    expect(routeOwn).not.toBe(byDefault);
    expect(resolve(false)).toBeUndefined();
    expect(resolve.gates.size).toBe(2);
  });

  it("gives no gate without settings", () => {
    const resolve = createSignInGateResolver(undefined);
    expect(resolve(undefined)).toBeUndefined();
    expect(resolve(own)).toBeDefined();
  });

  it("validates settings when a gate is built", () => {
    const resolve = createSignInGateResolver(undefined);
    expect(() => resolve({ rpcUrl: "not a url", contract: "0x1" })).toThrow();
  });
});
