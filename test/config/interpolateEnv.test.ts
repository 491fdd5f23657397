import { describe, expect, it } from "vitest";
import { interpolateEnv } from "../../src/config/interpolateEnv.js";
import { isHttpsOrLoopbackUrl } from "../../src/common/isHttpsOrLoopbackUrl.js";

describe("interpolateEnv", () => {
  const env = { A: "alpha", EMPTY: "" };

  it("replaces ${NAME} and ${NAME:-default}, as sh does for unset and empty", () => {
    expect(interpolateEnv("x-${A}-y", env)).toEqual({ ok: true, value: "x-alpha-y" });
    expect(interpolateEnv("${B:-bee}", env)).toEqual({ ok: true, value: "bee" });
    expect(interpolateEnv("${EMPTY:-fallback}", env)).toEqual({ ok: true, value: "fallback" });
    expect(interpolateEnv("${EMPTY}", env)).toEqual({ ok: true, value: "" });
    expect(interpolateEnv("${A:-}", env)).toEqual({ ok: true, value: "alpha" });
  });

  it("reports every unset variable without a default instead of inventing a value", () => {
    expect(interpolateEnv("${B} and ${C}", env)).toEqual({ ok: false, missing: ["B", "C"] });
  });

  it("keeps $${ as a literal ${ and leaves other dollars alone", () => {
    expect(interpolateEnv("$${A} costs $5 ${A}", env)).toEqual({ ok: true, value: "${A} costs $5 alpha" });
  });
});

describe("isHttpsOrLoopbackUrl", () => {
  it.each([
    ["https://facilitator.example.com", true],
    ["http://127.0.0.1:4022", true],
    ["http://127.8.9.1", true],
    ["http://localhost:3001", true],
    ["http://[::1]:3001", true],
    ["http://facilitator.example.com", false],
    ["http://10.0.0.5", false],
    ["http://127.0.0.1.nip.io", false],
    ["ftp://127.0.0.1", false],
    ["not a url", false],
  ])("%s → %s", (url, expected) => {
    expect(isHttpsOrLoopbackUrl(url)).toBe(expected);
  });
});
