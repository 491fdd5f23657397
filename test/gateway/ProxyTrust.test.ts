import type { IncomingMessage } from "node:http";
import express from "express";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeRequestFacts } from "../../src/adapters/nodeRequestFacts.js";
import { ProxyTrust } from "../../src/gateway/ProxyTrust.js";

/**
 * The gateway used to read the client's address, protocol and host through Express's `trust proxy`;
 * it now reads them itself. Express stays the oracle: the same request, read both ways, must agree.
 * One deliberate difference: of several `X-Forwarded-Proto` values the gateway reads the right-most,
 * the one the trusted hop appended (issue 20, item 11); Express reads the first, so the oracle is
 * given the right-most value alone.
 */
interface Case {
  trust: string[];
  peer: string;
  encrypted?: boolean;
  headers: Record<string, string>;
}

/** Express's `req.ip`, `req.protocol` and `req.host` for a request from `peer` with `headers`. */
function expressReading({ trust, peer, encrypted, headers: given }: Case) {
  const proto = given["x-forwarded-proto"];
  const headers =
    proto === undefined ? given : { ...given, "x-forwarded-proto": proto.split(",").at(-1) as string };
  const app = express();
  app.set("trust proxy", trust.length > 0 ? trust : false);
  const socket = { remoteAddress: peer, encrypted };
  const req = Object.assign(Object.create(app.request) as express.Request, {
    headers,
    socket,
    connection: socket,
  });
  return { ip: req.ip, protocol: req.protocol, host: req.host };
}

function expressAccepts(trust: string[]): boolean {
  try {
    express().set("trust proxy", trust.length > 0 ? trust : false);
    return true;
  } catch {
    return false;
  }
}

function gatewayReading({ trust, peer, encrypted, headers }: Case) {
  const reader = new ProxyTrust(trust);
  const req = { headers, socket: { remoteAddress: peer, encrypted } } as unknown as IncomingMessage;
  const facts = nodeRequestFacts(req, reader);
  expect(facts.secure).toBe(reader.protocol(req) === "https");
  return { ip: facts.clientAddress, protocol: reader.protocol(req), host: reader.host(req) };
}

const CORPUS: Array<[string, Case]> = [
  [
    "no trust: the socket's address, whatever is claimed",
    {
      trust: [],
      peer: "127.0.0.1",
      headers: {
        "x-forwarded-for": "1.2.3.4",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil",
        host: "h",
      },
    },
  ],
  [
    "trusted peer, one hop",
    {
      trust: ["127.0.0.1"],
      peer: "127.0.0.1",
      headers: {
        "x-forwarded-for": "203.0.113.5",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "api.example",
        host: "h",
      },
    },
  ],
  [
    "untrusted peer claims everything",
    {
      trust: ["10.0.0.0/8"],
      peer: "127.0.0.1",
      headers: {
        "x-forwarded-for": "203.0.113.5",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "evil",
        host: "h",
      },
    },
  ],
  [
    "a chain: the first untrusted hop from the right is the client",
    {
      trust: ["10.0.0.0/8", "loopback"],
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.9, 10.1.2.3" },
    },
  ],
  [
    "every hop trusted: the leftmost",
    {
      trust: ["uniquelocal", "loopback"],
      peer: "::1",
      headers: { "x-forwarded-for": "192.168.0.7,10.0.0.1 , 172.16.5.5" },
    },
  ],
  [
    "a spoofed leftmost entry behind an untrusted hop is ignored",
    {
      trust: ["loopback"],
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "1.1.1.1, 203.0.113.9" },
    },
  ],
  [
    "garbage in X-Forwarded-For is an untrusted client address",
    {
      trust: ["loopback"],
      peer: "127.0.0.1",
      headers: { "x-forwarded-for": "not-an-ip, 127.0.0.2" },
    },
  ],
  [
    "an empty X-Forwarded-For entry",
    { trust: ["loopback"], peer: "127.0.0.1", headers: { "x-forwarded-for": "" } },
  ],
  [
    "an IPv4-mapped IPv6 peer matches an IPv4 range",
    {
      trust: ["127.0.0.1/8"],
      peer: "::ffff:127.0.0.1",
      headers: { "x-forwarded-for": "203.0.113.5", "x-forwarded-proto": "https" },
    },
  ],
  [
    "an IPv4 peer against an IPv6 entry",
    { trust: ["::1"], peer: "127.0.0.1", headers: { "x-forwarded-proto": "https" } },
  ],
  [
    "a mapped entry whose prefix covers ::ffff: is an IPv4 range",
    { trust: ["::ffff:10.0.0.0/104"], peer: "10.9.9.9", headers: { "x-forwarded-for": "203.0.113.5" } },
  ],
  [
    "a mapped entry with a shorter prefix trusts no one",
    { trust: ["::ffff:0:0/80"], peer: "::ffff:10.0.0.1", headers: { "x-forwarded-for": "203.0.113.5" } },
  ],
  [
    "link-local IPv6",
    { trust: ["linklocal"], peer: "fe80::1", headers: { "x-forwarded-for": "2001:db8::1" } },
  ],
  [
    "the last of several protocols (the trusted hop's), trimmed",
    {
      trust: ["loopback"],
      peer: "127.0.0.1",
      headers: { "x-forwarded-proto": " https , http" },
    },
  ],
  [
    "a client's spoofed https before the trusted hop's http",
    {
      trust: ["loopback"],
      peer: "127.0.0.1",
      headers: { "x-forwarded-proto": "https, http" },
    },
  ],
  [
    "an odd protocol is passed on as given",
    { trust: ["loopback"], peer: "127.0.0.1", headers: { "x-forwarded-proto": "HTTPS" } },
  ],
  [
    "an empty protocol header",
    { trust: ["loopback"], peer: "127.0.0.1", headers: { "x-forwarded-proto": "" } },
  ],
  [
    "TLS without proxies",
    { trust: [], peer: "127.0.0.1", encrypted: true, headers: { "x-forwarded-proto": "http" } },
  ],
  [
    "TLS from a trusted proxy that says http",
    {
      trust: ["loopback"],
      peer: "127.0.0.1",
      encrypted: true,
      headers: { "x-forwarded-proto": "http" },
    },
  ],
  [
    "several forwarded hosts: the first, right-trimmed",
    {
      trust: ["loopback"],
      peer: "127.0.0.1",
      headers: { "x-forwarded-host": "a.example , b.example", host: "h" },
    },
  ],
  ["no Host at all", { trust: [], peer: "127.0.0.1", headers: {} }],
  [
    "a single CIDR /32",
    { trust: ["203.0.113.7/32"], peer: "203.0.113.7", headers: { "x-forwarded-for": "9.9.9.9" } },
  ],
];

describe("ProxyTrust reads a request as Express's trust proxy did", () => {
  it("never takes a legacy IPv4 spelling (127.1, 2130706433) for a trusted hop, where Express did", () => {
    const reader = new ProxyTrust(["loopback"]);
    for (const spelling of ["127.1", "2130706433", "0x7f.0.0.1"]) {
      const req = {
        headers: { "x-forwarded-for": `198.51.100.7, ${spelling}` },
        socket: { remoteAddress: "127.0.0.1" },
      } as unknown as IncomingMessage;
      expect(reader.trusts(spelling)).toBe(false);
      expect(reader.clientAddress(req)).toBe(spelling);
    }
  });

  it("X-Forwarded-Proto: https, http from a trusted proxy reads http, the value the proxy appended", () => {
    const reader = new ProxyTrust(["loopback"]);
    const req = {
      headers: { "x-forwarded-proto": "https, http" },
      socket: { remoteAddress: "127.0.0.1" },
    } as unknown as IncomingMessage;
    expect(reader.protocol(req)).toBe("http");
    expect(nodeRequestFacts(req, reader).secure).toBe(false);
  });

  it.each(CORPUS)("%s", (_name, input) => {
    expect(gatewayReading(input)).toEqual(expressReading(input));
  });

  it("agrees with Express on generated peers, chains and headers", () => {
    const v4 = fc.oneof(
      fc.ipV4(),
      fc.constantFrom("127.0.0.1", "127.9.9.9", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.1.1"),
    );
    // Canonical spellings, as a socket gives them (`::0.0.0.0` is valid to Node, not to Express's parser).
    const canonical = (ip: string) => new URL(`http://[${ip}]`).hostname.slice(1, -1);
    const v6 = fc.oneof(
      fc.ipV6().map(canonical),
      fc.constantFrom("::1", "fe80::1", "fc00::1", "::ffff:10.0.0.1", "::ffff:a00:1"),
    );
    const address = fc.oneof(v4, v6);
    const entry = fc.oneof(
      fc.constantFrom("loopback", "linklocal", "uniquelocal"),
      address,
      fc.tuple(v4, fc.integer({ min: 0, max: 32 })).map(([ip, bits]) => `${ip}/${bits}`),
      fc.tuple(v6, fc.integer({ min: 0, max: 128 })).map(([ip, bits]) => `${ip}/${bits}`),
    );
    const hop = fc.oneof(address, fc.constantFrom("", " ", "unknown", "\t10.0.0.1", "1.2.3.4 5"));
    const headers = fc.record(
      {
        "x-forwarded-for": fc
          .tuple(fc.array(hop, { maxLength: 5 }), fc.constantFrom(",", ", ", " ,"))
          .map(([hops, separator]) => hops.join(separator)),
        "x-forwarded-proto": fc.constantFrom("https", "http", "https, http", " HTTPS ", "", "ws"),
        "x-forwarded-host": fc.constantFrom("api.example", "a.example, b.example", "", "x:8080"),
        host: fc.constantFrom("gw.example", "127.0.0.1:8402", ""),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 4 }),
        address,
        fc.boolean(),
        headers,
        (trust, peer, encrypted, given) => {
          // Entries Express itself refused at start-up (a /0 range, `::0.0.0.0`) have no reading to match.
          fc.pre(expressAccepts(trust));
          const input: Case = { trust, peer, encrypted, headers: given };
          expect(gatewayReading(input)).toEqual(expressReading(input));
        },
      ),
      { numRuns: 500 },
    );
  });
});
