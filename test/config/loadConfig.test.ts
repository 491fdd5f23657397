import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/ConfigError.js";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";
import { selfSignedCert } from "../support/selfSignedCert.js";

const FILE = "gateway.yaml";

const valid = `listen:
  port: 0
facilitator:
  url: http://127.0.0.1:4022
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: http://127.0.0.1:3001
routes:
  GET /api/apy:
    price: $0.001
`;

function problemsOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(text, { file: FILE, env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.split("\n").slice(1);
  }
  throw new Error("expected a ConfigError");
}

describe("parseConfig", () => {
  it("fills every default once", () => {
    const config = parseConfig(valid, { file: FILE, env: {} });
    expect(config.listen).toEqual({ host: "127.0.0.1", port: 0, allowPlainHttp: false });
    expect(config.limits).toEqual({
      maxBodyBytes: 1048576,
      maxHeaderBytes: 103768, // the largest CBOR payment header (87,384 chars) + 16 KiB
      drainTimeoutMs: 30000,
      headersTimeoutMs: 20000,
      requestTimeoutMs: 60000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 1024,
    });
    expect(config.upstreams[0]).toMatchObject({ prefix: "/", connectTimeoutMs: 10000, timeoutMs: 60000 });
    expect(config.ledger).toEqual({ type: "memory" });
    // On a loopback listener of their own; the port defaults at listen time (9402, or 0 beside port 0).
    expect(config.metrics).toEqual({
      enabled: true,
      path: "/metrics",
      listen: { host: "127.0.0.1" },
      onGatewayListener: false,
    });
    expect(config.facilitator).toMatchObject({ timeoutMs: 10000 });
  });

  it("keeps unquoted 0x addresses as strings", () => {
    const config = parseConfig(
      valid.replace(
        '"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"',
        "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      ),
      {
        file: FILE,
        env: {},
      },
    );
    expect(config.payTo).toBe("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
  });

  it("accepts JSON, which is YAML", () => {
    const json = JSON.stringify({
      facilitator: { url: "https://x402.org/facilitator" },
      payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      network: "eip155:8453",
      upstreams: [{ url: "https://api.example.com" }],
      routes: { "GET /a": { price: "$0.01" } },
    });
    expect(parseConfig(json, { file: "g.json", env: {} }).network).toBe("eip155:8453");
  });

  it("interpolates ${VAR} and ${VAR:-default}, typing plain scalars back", () => {
    const text = valid.replace("port: 0", "port: ${PORT:-8080}").replace("http://127.0.0.1:4022", "${FAC}");
    const config = parseConfig(text, { file: FILE, env: { FAC: "https://facilitator.example.com" } });
    expect(config.listen.port).toBe(8080);
    expect(config.facilitator).toMatchObject({ url: "https://facilitator.example.com" });
    expect(parseConfig(text, { file: FILE, env: { FAC: "http://localhost:1", PORT: "9" } }).listen.port).toBe(
      9,
    );
  });

  it("names the line and key of a missing environment variable", () => {
    const text = valid.replace("url: http://127.0.0.1:4022", "url: ${FACILITATOR_URL}");
    expect(problemsOf(text)).toEqual([
      "gateway.yaml:4:8 facilitator.url: environment variable FACILITATOR_URL is not set (set it, or write ${FACILITATOR_URL:-default})",
    ]);
  });

  it("reports missing environment variables and schema problems in one run", () => {
    const text = valid
      .replace("url: http://127.0.0.1:4022", "url: ${FACILITATOR_URL}")
      .replace("price: $0.001", "price: ${PRICE}")
      .replace("port: 0", "port: 0\n  hots: x");
    expect(problemsOf(text)).toEqual([
      'gateway.yaml:3:3 listen.hots: unknown key "hots"; expected one of: host, port, tls, allowPlainHttp',
      "gateway.yaml:5:8 facilitator.url: environment variable FACILITATOR_URL is not set (set it, or write ${FACILITATOR_URL:-default})",
      'gateway.yaml:12:12 routes["GET /api/apy"].price: environment variable PRICE is not set (set it, or write ${PRICE:-default})',
    ]);
  });

  it("says once to quote a ${VAR} written unquoted inside a flow mapping, instead of the parser's cascade", () => {
    const hint = (name: string, blockStyle: string) =>
      `invalid YAML: an unquoted \${${name}} inside { … } or [ … ] reads as YAML braces; ${blockStyle}, or quote it ("\${${name}}") where the value is text`;
    const cases = [
      {
        text: "listen: { host: 127.0.0.1, port: ${PORT} }\nfacilitator: { url: ${URL} }\n",
        problem: `1:34 (syntax): ${hint("PORT", "write the key on its own line (port: ${PORT})")}`,
      },
      {
        text: `${valid}trustProxy: [loopback, \${PROXY_CIDR:-10.0.0.0/8}]\n`,
        problem: `12:24 (syntax): ${hint("PROXY_CIDR", "write the list one item per line (- ${PROXY_CIDR:-10.0.0.0/8})")}`,
      },
      {
        text: "facilitator:\n  headers: { Authorization: Bearer ${TOKEN} }\n",
        problem: `2:36 (syntax): ${hint("TOKEN", "write the key on its own line (Authorization: Bearer ${TOKEN})")}`,
      },
    ];
    for (const { text, problem } of cases) expect(problemsOf(text)).toEqual([`gateway.yaml:${problem}`]);
    // Quoted, it parses, and the value is interpolated.
    const quoted = valid
      .replace("url: http://127.0.0.1:4022", '{ url: "${URL}" }')
      .replace("facilitator:\n  ", "facilitator: ");
    expect(
      parseConfig(quoted, { file: FILE, env: { URL: "http://127.0.0.1:4000" } }).facilitator,
    ).toMatchObject({ url: "http://127.0.0.1:4000" });
  });

  it("names the line and key of a bad price, an unknown key and a bad value", () => {
    const text = valid
      .replace("price: $0.001", "price: $0.0x1")
      .replace("port: 0", "port: 0\n  hots: x\n  tls: {}");
    expect(problemsOf(text)).toEqual([
      'gateway.yaml:3:3 listen.hots: unknown key "hots"; expected one of: host, port, tls, allowPlainHttp',
      "gateway.yaml:4:3 listen.tls.certFile: missing required key (expected string)",
      "gateway.yaml:4:3 listen.tls.keyFile: missing required key (expected string)",
      'gateway.yaml:13:12 routes["GET /api/apy"].price: expected a money string ("$0.01"), a number (0.01) or { amount, asset, extra }',
    ]);
  });

  it("reports YAML syntax errors with their line", () => {
    const [problem] = problemsOf("listen:\n  port: [1, 2\nrouting: x\n");
    expect(problem).toMatch(/^gateway\.yaml:\d+:\d+ \(syntax\): invalid YAML\/JSON: /);
  });

  it("refuses plain-http outbound URLs off loopback", () => {
    const text = valid.replace("http://127.0.0.1:3001", "http://upstream.internal:3001");
    expect(problemsOf(text)).toEqual([
      "gateway.yaml:8:10 upstreams[0].url: expected an https:// URL (plain http is allowed only on loopback); for a backend inside a private network, set allowPlainHttp: true on this upstream",
    ]);
  });

  it("takes a plain-http upstream off loopback with its own allowPlainHttp: true (issue 31, item 8)", () => {
    const opted = valid.replace(
      "  - url: http://127.0.0.1:3001",
      "  - url: http://backend:8080\n    allowPlainHttp: true",
    );
    expect(parseConfig(opted, { file: FILE, env: {} }).upstreams).toEqual([
      expect.objectContaining({ url: "http://backend:8080", allowPlainHttp: true }),
    ]);
    // Only that upstream: another one without the opt-in is still refused; and never another scheme.
    const second = opted.replace(
      "upstreams:\n",
      "upstreams:\n  - { prefix: /other, url: http://other:8080 }\n",
    );
    expect(problemsOf(second)).toEqual([
      expect.stringMatching(/^gateway\.yaml:8:\d+ upstreams\[0\]\.url: expected an https:\/\/ URL/),
    ]);
    expect(problemsOf(opted.replace("http://backend:8080", "ftp://backend:8080"))).toEqual([
      expect.stringMatching(/upstreams\[0\]\.url: expected the upstream's base URL/),
    ]);
  });

  it("checks prices against the asset table like x402() does", () => {
    const text = valid.replace("eip155:84532", "eip155:31337");
    expect(problemsOf(text)).toEqual([
      'gateway.yaml:11:12 routes["GET /api/apy"].price: no default asset is known for eip155:31337: give { amount, asset, extra } or register it in `assets`',
    ]);
  });

  it("rejects bad trustProxy entries", () => {
    const text = `${valid}trustProxy: [10.0.0.0/8, "::1", loopback, 10.0.0.0/99]\n`;
    expect(problemsOf(text)).toEqual([
      'gateway.yaml:12:43 trustProxy[3]: expected an IP address, a CIDR such as "10.0.0.0/8", or loopback/linklocal/uniquelocal',
    ]);
  });
});

describe("loadConfig", () => {
  it("resolves TLS files against the config file's folder", async () => {
    const { certFile, keyFile } = await selfSignedCert();
    const dir = dirname(certFile);
    const file = join(dir, "g.yaml");
    await writeFile(
      file,
      valid.replace("port: 0", `port: 0\n  tls: { certFile: ${basename(certFile)}, keyFile: ${keyFile} }`),
    );
    const config = await loadConfig(file, { env: {} });
    expect(config.listen.tls).toEqual({ certFile, keyFile });
  });

  it("checks that the TLS files exist, parse and match, with the route table's problems in the same run", async () => {
    const [one, two] = await Promise.all([selfSignedCert(), selfSignedCert()]);
    const dir = await mkdtemp(join(tmpdir(), "gw-config-"));
    await writeFile(
      join(dir, "garbage.pem"),
      "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n",
    );
    const cases = [
      {
        tls: `{ certFile: missing.pem, keyFile: ${one.keyFile} }`,
        problems: [`listen.tls.certFile: cannot read ${join(dir, "missing.pem")}: ENOENT`],
      },
      {
        tls: `{ certFile: garbage.pem, keyFile: garbage.pem }`,
        problems: [
          `listen.tls.certFile: ${join(dir, "garbage.pem")} is not a PEM X.509 certificate`,
          `listen.tls.keyFile: ${join(dir, "garbage.pem")} is not a PEM private key (or is encrypted: the gateway takes no passphrase)`,
        ],
      },
      {
        tls: `{ certFile: ${one.certFile}, keyFile: ${one.certFile} }`,
        problems: [
          `listen.tls.keyFile: ${one.certFile} is not a PEM private key (or is encrypted: the gateway takes no passphrase)`,
        ],
      },
      {
        tls: `{ certFile: ${one.certFile}, keyFile: ${two.keyFile} }`,
        problems: [`listen.tls.keyFile: ${two.keyFile} is not the private key of ${one.certFile}`],
      },
    ];
    for (const { tls, problems } of cases) {
      const file = join(dir, "g.yaml");
      await writeFile(
        file,
        valid.replace("port: 0", `port: 0\n  tls: ${tls}`).replace("GET /api/apy:", "FETCH /api/apy:"),
      );
      const error = await loadConfig(file, { env: {} }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigError);
      const lines = (error as ConfigError).problems.map((problem) => `${problem.path}: ${problem.message}`);
      expect(lines).toEqual([
        ...problems,
        expect.stringMatching(/^routes\["FETCH \/api\/apy"\]: .*unknown method "FETCH"/),
      ]);
    }
  });

  it("says when the file cannot be read", async () => {
    await expect(loadConfig("/nonexistent/g.yaml")).rejects.toThrow(
      /\/nonexistent\/g\.yaml \(root\): cannot read the file/,
    );
  });
});

describe("the official route config shapes in the gateway config", () => {
  const official = `listen:
  port: 0
facilitator:
  url: http://127.0.0.1:4022
upstreams:
  - url: http://127.0.0.1:3001
routes:
  GET /protected-route:
    accepts:
      scheme: exact
      price: $0.10
      network: eip155:84532
      payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
      maxTimeoutSeconds: 60
      extra: { assetTransferMethod: eip3009 }
    description: Access to premium content
    mimeType: application/json
    serviceName: Premium
    tags: [premium, data]
    extensions: { example: { info: { a: 1 } } }
`;

  it("takes a single-object accepts, extra, serviceName, tags and extensions, with no top-level payTo/network", () => {
    const config = parseConfig(official, { file: FILE, env: {} });
    const route = config.routes["GET /protected-route"];
    expect(route?.accepts).toEqual([
      {
        scheme: "exact",
        price: "$0.10",
        network: "eip155:84532",
        payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
        maxTimeoutSeconds: 60,
        extra: { assetTransferMethod: "eip3009" },
      },
    ]);
    expect(route).toMatchObject({ serviceName: "Premium", tags: ["premium", "data"] });
    expect(route?.extensions).toEqual({ example: { info: { a: 1 } } });
  });

  it("names the route whose option has no payTo when the top level has none either", () => {
    const text = official.replace(/\n {6}payTo: .*\n/, "\n");
    expect(problemsOf(text)).toEqual([
      expect.stringMatching(/routes\["GET \/protected-route"\]\.accepts\[0\]: no payTo: give it here/),
    ]);
  });
});
