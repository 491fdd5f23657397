import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { insecureTransportProblem } from "../../src/payer/insecureTransportProblem.js";
import { TEST_NETWORKS } from "../../src/protocol/isTestNetwork.js";

const allow = { allowInsecureHttp: true, setting: "--allow-insecure-http" };

describe("insecureTransportProblem: where a payer may send a signature", () => {
  // [url, network, allowInsecureHttp, refused?]
  const table: [string, string | undefined, boolean, RegExp | undefined][] = [
    ["https://api.example.com/x", "eip155:8453", false, undefined],
    ["https://192.0.2.2:8443/x", undefined, false, undefined],
    ["http://127.0.0.1:8402/x", "eip155:1", false, undefined],
    ["http://127.8.9.10/x", undefined, false, undefined],
    ["http://localhost:3000/x", undefined, false, undefined],
    ["http://api.localhost/x", undefined, false, undefined],
    ["http://[::1]:8402/x", undefined, false, undefined],
    ["http://api.example.com/x", "eip155:84532", false, /TLS is mandatory/],
    [
      "http://192.0.2.2:8402/x",
      "eip155:31337",
      false,
      /plain HTTP to 192\.0\.2\.2:8402, which is not loopback/,
    ],
    ["http://10.0.0.1/x", undefined, false, /TLS is mandatory/],
    ["http://0.0.0.0/x", undefined, false, /not loopback/],
    ["http://127.0.0.1.nip.io/x", undefined, false, /not loopback/],
    ["http://localhost.example.com/x", undefined, false, /not loopback/],
    ["http://[::ffff:10.0.0.1]/x", undefined, false, /not loopback/],
    ["http://[fd00::2]/x", undefined, false, /not loopback/],
    ["HTTP://API.EXAMPLE.COM/x", undefined, false, /not loopback/],
    ["ftp://127.0.0.1/x", undefined, true, /ftp: is not HTTPS/],
    ["ws://api.example.com/x", "eip155:84532", true, /ws: is not HTTPS/],
    ["not a url", undefined, true, /is not a URL/],
    ["", undefined, true, /is not a URL/],
    ["http://api.example.com/x", "eip155:84532", true, undefined],
    ["http://api.example.com/x", "eip155:31337", true, undefined],
    ["http://api.example.com/x", "eip155:8453", true, /test networks only, and eip155:8453 is not one/],
    ["http://api.example.com/x", "eip155:1", true, /eip155:1 is not one/],
    ["http://api.example.com/x", "eip155:999999", true, /eip155:999999 is not one/],
    ["http://api.example.com/x", undefined, true, /names no network/],
  ];
  for (const [url, network, allowInsecureHttp, refused] of table) {
    it(`${JSON.stringify(url)} for ${network ?? "no network"}${allowInsecureHttp ? " (allowed)" : ""}: ${refused ? "refused" : "sent"}`, () => {
      const problem = insecureTransportProblem(url, network, allowInsecureHttp ? allow : {});
      if (refused === undefined) expect(problem).toBeUndefined();
      else expect(problem).toMatch(refused);
    });
  }

  it("names the setting that allows it, when there is one", () => {
    expect(insecureTransportProblem("http://a.example/", "eip155:84532", { setting: "X_ALLOW" })).toMatch(
      /or set X_ALLOW \(test networks only\)/,
    );
  });

  const host = fc.oneof(
    fc.domain().filter((name) => name !== "localhost" && !name.endsWith(".localhost")),
    fc.ipV4().filter((ip) => !ip.startsWith("127.")),
  );
  const network = fc.oneof(
    fc.constantFrom(...TEST_NETWORKS),
    fc.integer({ min: 1, max: 2 ** 40 }).map((id) => `eip155:${id}`),
    fc.constant(undefined),
  );

  it("property: https:// is always allowed; plain HTTP off loopback never without the setting", () => {
    fc.assert(
      fc.property(host, network, fc.boolean(), (name, id, allowed) => {
        expect(insecureTransportProblem(`https://${name}/x`, id, allowed ? allow : {})).toBeUndefined();
        expect(insecureTransportProblem(`http://${name}/x`, id, {})).toMatch(/TLS is mandatory/);
      }),
    );
  });

  it("property: with the setting, plain HTTP off loopback only for a test network", () => {
    fc.assert(
      fc.property(host, network, (name, id) => {
        const problem = insecureTransportProblem(`http://${name}/x`, id, allow);
        expect(problem === undefined).toBe(id !== undefined && TEST_NETWORKS.includes(id));
      }),
    );
  });
});
