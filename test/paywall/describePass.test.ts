import { describe, expect, it } from "vitest";
import { describePass } from "../../src/paywall/passes/describePass.js";

describe("describePass (the paywall page's line)", () => {
  it.each([
    [{ pass: { scope: "s", requests: 10, seconds: 2_592_000 } }, "10 requests within 30 days"],
    [{ pass: { scope: "s", requests: 1, seconds: 3_600 } }, "1 request within 1 hour"],
    [{ pass: { scope: "s", seconds: 90 } }, "access for 90 seconds"],
    [{ pass: { scope: "s", seconds: 120 } }, "access for 2 minutes"],
    [undefined, undefined],
    [{}, undefined],
    [{ pass: null }, undefined],
    [{ pass: "10 requests" }, undefined],
    [{ pass: { requests: 10 } }, undefined],
    [{ pass: { requests: "<b>10</b>", seconds: 60 } }, "access for 1 minute"],
    [{ pass: { requests: -1, seconds: -5 } }, undefined],
  ])("%j → %s", (extensions, line) => {
    expect(describePass(extensions as Record<string, unknown> | undefined)).toBe(line);
  });
});
