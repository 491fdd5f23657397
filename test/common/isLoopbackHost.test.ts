import { isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isLoopbackHost } from "../../src/common/isLoopbackHost.js";

/** The reading with `node:net` the module had before it ran without Node: the oracle. */
function withNodeNet(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || /^::ffff:127\./i.test(bare);
  return false;
}

describe("isLoopbackHost without node:net", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.255.255.254", true],
    ["[::1]", true],
    ["::1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["::FFFF:127.1.2.3", true],
    ["localhost", true],
    ["api.localhost", true],
    ["127.0.0.256", false],
    ["127.0.0.01", false],
    ["127.0.0", false],
    ["127.evil.com", false],
    ["::ffff:127.0.0.1.evil", false],
    ["::ffff:127.0.0.999", false],
    ["10.0.0.1", false],
    ["::2", false],
    ["", false],
    ["localhost.evil.com", false],
  ])("%s → %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
    expect(withNodeNet(host)).toBe(loopback);
  });

  it("agrees with node:net's reading on generated addresses and near misses", () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map(String),
      fc.constantFrom("01", "00", "1a", ""),
    );
    const ipv4 = fc
      .tuple(fc.constantFrom("127", "10", "1270"), octet, octet, octet)
      .map((parts) => parts.join("."));
    const host = fc.oneof(
      ipv4,
      ipv4.map((address) => `::ffff:${address}`),
      ipv4.map((address) => `[::ffff:${address}]`),
      fc.constantFrom("::1", "[::1]", "::0:1", "0::1", "::", "localhost", "x.localhost", "localhostx"),
      fc.string(),
    );
    fc.assert(
      fc.property(host, (value) => isLoopbackHost(value) === withNodeNet(value)),
      { numRuns: 2000 },
    );
  });
});
