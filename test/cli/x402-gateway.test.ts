import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { collect, runCli, spawnCli, waitForLine } from "./support/runCli.js";

const CLI = "src/cli/x402-gateway.ts";
let dir: string;
let upstream: TestUpstream;

const config = (upstreamUrl: string) => `listen:
  host: 127.0.0.1
  port: 0
facilitator:
  url: http://127.0.0.1:9
payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
network: eip155:84532
upstreams:
  - url: ${upstreamUrl}
routes:
  GET /priced:
    price: $0.01
logging:
  level: warn
`;

async function configFile(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gw-cli-"));
  upstream = await startUpstream();
});

afterAll(async () => {
  await upstream.stop();
});

describe("x402-gateway check-config", () => {
  it("accepts the default config/gateway.yaml", async () => {
    const result = await runCli(CLI, ["check-config", "config/gateway.yaml"]);
    // The local demo runs one instance with recognition on a memory ledger: warned, and valid.
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^config\/gateway\.yaml: warning: recognition runs with ledger\.type memory: /),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/config\/gateway\.yaml: ok — 10 priced routes, 2 upstreams/);
  });

  it("plugins: loaded relative to the file; one that is missing or exports no hook is reported at plugins[n]", async () => {
    await writeFile(join(dir, "good.mjs"), "export function onAfterSettle() {}\n");
    await writeFile(join(dir, "empty.mjs"), "export const notAHook = 1;\n");
    const good = await configFile("plugins-ok.yaml", `${config(upstream.url)}plugins:\n  - ./good.mjs\n`);
    const ok = await runCli(CLI, ["check-config", good]);
    expect(ok.code).toBe(0);
    const bad = await configFile(
      "plugins-bad.yaml",
      `${config(upstream.url)}plugins:\n  - ./good.mjs\n  - ./missing.mjs\n  - ./empty.mjs\n`,
    );
    const result = await runCli(CLI, ["check-config", bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/plugins\[1\]: cannot load the plugin .*missing\.mjs/);
    expect(result.stderr).toMatch(/plugins\[2\]: .*empty\.mjs: exports no hook/);
  });

  it("bad YAML: exit 1 with the file and line", async () => {
    const file = await configFile("syntax.yaml", "listen:\n  port: [1, 2\nroutes: {}\n");
    const result = await runCli(CLI, ["check-config", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`${file}:\\d+:\\d+ \\(syntax\\): invalid YAML/JSON`));
  });

  it("unknown key, bad price, missing env var: exit 1 with every line and key in one run", async () => {
    const text = config("http://127.0.0.1:3001")
      .replace("  port: 0", "  port: 0\n  prot: 1")
      .replace("price: $0.01", "price: ten cents")
      .replace("http://127.0.0.1:9", "${FACILITATOR_URL_FOR_TEST}");
    const file = await configFile("bad.yaml", text);
    // Set or not, the environment does not hide the schema's problems (nor the other way round).
    for (const value of [undefined, "https://f.example.com"]) {
      const result = await runCli(CLI, ["check-config", file], { FACILITATOR_URL_FOR_TEST: value });
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split("\n")).toEqual([
        `invalid config ${file}:`,
        `${file}:4:3 listen.prot: unknown key "prot"; expected one of: host, port, tls, allowPlainHttp`,
        ...(value === undefined
          ? [
              `${file}:6:8 facilitator.url: environment variable FACILITATOR_URL_FOR_TEST is not set (set it, or write \${FACILITATOR_URL_FOR_TEST:-default})`,
            ]
          : []),
        `${file}:13:12 routes["GET /priced"].price: expected a money string ("$0.01"), a number (0.01) or { amount, asset, extra }`,
      ]);
    }
  });

  it("an unquoted ${VAR} in a flow mapping: one hint to quote it, not the parser's cascade", async () => {
    const file = await configFile(
      "flow.yaml",
      config(upstream.url).replace(
        "facilitator:\n  url: http://127.0.0.1:9",
        "facilitator: { url: ${F_URL} }",
      ),
    );
    const result = await runCli(CLI, ["check-config", file], { F_URL: "http://127.0.0.1:9" });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      `invalid config ${file}:`,
      `${file}:4:21 (syntax): invalid YAML: an unquoted \${F_URL} inside { … } or [ … ] reads as YAML braces; write the key on its own line (url: \${F_URL}), or quote it ("\${F_URL}") where the value is text`,
    ]);
  });

  it("--version prints package.json's version", async () => {
    const { version } = JSON.parse(
      await readFile(new URL("../../package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    const result = await runCli(CLI, ["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  // Each run starts TypeScript afresh: run them side by side, and give a loaded machine room.
  it("prints usage for --help on every command", { timeout: 120_000 }, async () => {
    const commands = [["--help"], ["serve", "--help"], ["check-config", "--help"], ["recognize", "--help"]];
    const [unknown, ...results] = await Promise.all([
      runCli(CLI, ["serv"]),
      ...commands.map((args) => runCli(CLI, args)),
    ]);
    results.forEach((result, index) => {
      expect(result!.code, commands[index]!.join(" ")).toBe(0);
      expect(result!.stdout).toMatch(/^Usage: x402-gateway/);
    });
    expect(unknown!.code).toBe(2);
    expect(unknown!.stderr).toContain('unknown command "serv"');
  });
});

describe("x402-gateway serve", () => {
  it("answers 402 on a priced route, proxies a free one, and exits 0 on SIGTERM", async () => {
    const file = await configFile("serve.yaml", config(upstream.url));
    const child = spawnCli(CLI, ["serve", "--config", file]);
    const done = collect(child);
    const [, url] = await waitForLine(child, /x402-gateway listening on (http:\/\/\S+)/);

    const priced = await fetch(`${url}/priced`);
    expect(priced.status).toBe(402);
    expect(priced.headers.get("payment-required")).toBeTruthy();
    const free = await fetch(`${url}/free/thing`);
    expect(free.status).toBe(200);
    expect(await free.json()).toMatchObject({ ok: true, url: "/free/thing" });

    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
  });

  it("LOG_FORMAT=pretty: one readable line per entry, ending with the stopped line; an unknown format exits 1", async () => {
    const file = await configFile("pretty.yaml", config(upstream.url).replace("level: warn", "level: info"));
    const child = spawnCli(CLI, ["serve", "--config", file], { LOG_FORMAT: "pretty" });
    const done = collect(child);
    const [, url] = await waitForLine(child, /x402-gateway listening on (http:\/\/\S+)/);
    expect((await fetch(`${url}/free/thing`)).status).toBe(200);
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.filter((line) => line.startsWith("{"))).toEqual([]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\d\d:\d\d:\d\d\.\d{3} INFO {2}request .*method=GET .*path=\/free\/thing .*status=200/,
      ),
    );
    expect(lines.at(-1)).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}stopped signal=SIGTERM$/);

    const bogus = await runCli(CLI, ["serve", "--config", file], { LOG_FORMAT: "colour" });
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toContain('LOG_FORMAT must be json or pretty, got "colour"');
  });

  it("exits 1 with the problems when the config is invalid", async () => {
    const file = await configFile(
      "serve-bad.yaml",
      config(upstream.url).replace("network: eip155:84532", "network: base"),
    );
    const result = await runCli(CLI, ["serve", "--config", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:7:10 network: expected a CAIP-2 network id such as eip155:8453`);
  });
});

describe("start-up checks of check-config and serve", () => {
  const recognizing = (upstreamUrl: string) =>
    `${config(upstreamUrl)}publicUrl: https://api.test
recognition:
  rpcUrl: http://127.0.0.1:9
  contract: "0x1"
`;

  it("refuses a non-loopback plain-HTTP listener, naming listen.host, from the file and from --host", async () => {
    const file = await configFile(
      "open.yaml",
      config(upstream.url).replace("host: 127.0.0.1", "host: 0.0.0.0"),
    );
    const checked = await runCli(CLI, ["check-config", file]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(
      new RegExp(
        `${file}:2:9 listen\\.host: 0\\.0\\.0\\.0 is not a loopback address and listen\\.tls is unset`,
      ),
    );
    expect(checked.stderr).toContain("listen.allowPlainHttp: true");

    const loopback = await configFile("loopback.yaml", config(upstream.url));
    const served = await runCli(CLI, ["serve", "--config", loopback, "--host", "0.0.0.0"]);
    expect(served.code).toBe(1);
    expect(served.stderr).toContain(`${loopback} listen.host (--host): 0.0.0.0 is not a loopback address`);
    expect(served.stdout).not.toContain("listening");

    // Said on purpose: it starts.
    const allowed = await configFile(
      "allowed.yaml",
      config(upstream.url).replace("host: 127.0.0.1", "host: 0.0.0.0\n  allowPlainHttp: true"),
    );
    expect((await runCli(CLI, ["check-config", allowed])).code).toBe(0);
  });

  it("warns that recognition with a memory ledger is one instance's only, in check-config and at serve start-up", async () => {
    const file = await configFile("recognizing.yaml", recognizing(upstream.url));
    const checked = await runCli(CLI, ["check-config", file]);
    expect(checked.code).toBe(0);
    expect(checked.stderr).toContain(`${file}: warning: recognition runs with ledger.type memory`);

    const child = spawnCli(CLI, ["serve", "--config", file]);
    const done = collect(child);
    await waitForLine(child, /x402-gateway listening on/);
    child.kill("SIGTERM");
    const served = await done;
    expect(served.code).toBe(0);
    expect(served.stderr).toContain("x402-gateway serve: warning: recognition runs with ledger.type memory");

    const plain = await runCli(CLI, ["check-config", await configFile("plain.yaml", config(upstream.url))]);
    expect(plain.stderr).toBe("");
  });

  it("check-config --workers 2 refuses a memory ledger as serve --workers 2 does", async () => {
    const file = await configFile("workers.yaml", config(upstream.url));
    const checked = await runCli(CLI, ["check-config", file, "--workers", "2"]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain(`${file}: --workers 2 needs a shared ledger: set ledger: { type: redis`);
    expect((await runCli(CLI, ["check-config", file, "--workers", "1"])).code).toBe(0);
    expect((await runCli(CLI, ["check-config", file, "--workers", "none"])).code).toBe(2);
  });
});
