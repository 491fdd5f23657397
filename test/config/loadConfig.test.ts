import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/ConfigError.js";
import { loadConfig, parseConfig } from "../../src/config/loadConfig.js";

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
      maxHeaderBytes: 65536,
      drainTimeoutMs: 30000,
      headersTimeoutMs: 20000,
      requestTimeoutMs: 60000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 1024,
    });
    expect(config.upstreams[0]).toMatchObject({ prefix: "/", connectTimeoutMs: 10000, timeoutMs: 60000 });
    expect(config.ledger).toEqual({ type: "memory" });
    expect(config.metrics).toEqual({ enabled: true, path: "/metrics" });
    expect(config.facilitator.timeoutMs).toBe(10000);
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
    expect(config.facilitator.url).toBe("https://facilitator.example.com");
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

  it("names the line and key of a bad price, an unknown key and a bad value", () => {
    const text = valid
      .replace("price: $0.001", "price: $0.0x1")
      .replace("port: 0", "port: 0\n  hots: x\n  tls: {}");
    expect(problemsOf(text)).toEqual([
      'gateway.yaml:3:3 listen.hots: unknown key "hots"; expected one of: host, port, tls, allowPlainHttp',
      "gateway.yaml:4:3 listen.tls.certFile: missing required key (expected string)",
      "gateway.yaml:4:3 listen.tls.keyFile: missing required key (expected string)",
      'gateway.yaml:13:12 routes["GET /api/apy"].price: expected a money string ("$0.01") or { amount, asset, extra }',
    ]);
  });

  it("reports YAML syntax errors with their line", () => {
    const [problem] = problemsOf("listen:\n  port: [1, 2\nrouting: x\n");
    expect(problem).toMatch(/^gateway\.yaml:\d+:\d+ \(syntax\): invalid YAML\/JSON: /);
  });

  it("refuses plain-http outbound URLs off loopback", () => {
    const text = valid.replace("http://127.0.0.1:3001", "http://upstream.internal:3001");
    expect(problemsOf(text)).toEqual([
      "gateway.yaml:8:10 upstreams[0].url: expected an https:// URL (plain http is allowed only on loopback)",
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
    const dir = await mkdtemp(join(tmpdir(), "gw-config-"));
    const file = join(dir, "g.yaml");
    await writeFile(
      file,
      valid.replace("port: 0", "port: 0\n  tls: { certFile: c.pem, keyFile: /abs/k.pem }"),
    );
    const config = await loadConfig(file, { env: {} });
    expect(config.listen.tls).toEqual({ certFile: join(dir, "c.pem"), keyFile: "/abs/k.pem" });
  });

  it("says when the file cannot be read", async () => {
    await expect(loadConfig("/nonexistent/g.yaml")).rejects.toThrow(
      /\/nonexistent\/g\.yaml \(root\): cannot read the file/,
    );
  });
});
