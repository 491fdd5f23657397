import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";
import { ConfigError } from "../../src/config/ConfigError.js";
import { gatewayConfigSchema, type GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import type { GatewayPaywall } from "../../src/gateway/createGateway.js";
import { MEMBER_PUBLIC_URL, memberRouteConfig } from "../support/memberRouteConfig.js";
import { ADMIN_MAX_BODY_BYTES } from "../../src/gateway/createAdminEndpoint.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { parseRevocationRequest } from "../../src/recognition/parseRevocationRequest.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { signInHeader } from "../reliability/support/signIn.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

const payer = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const TOKEN = "admin-token-for-the-revocation-suite-0123456789";
const PUBLIC_URL = MEMBER_PUBLIC_URL;

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let upstream: TestUpstream;
let off: RunningGateway;
let on: RunningGateway;
const logLines: string[] = [];

function config(extra: Partial<GatewayConfigInput>): GatewayConfigInput {
  return memberRouteConfig(
    { facilitatorUrl: facilitator.url, upstreamUrl: upstream.url, rpcUrl: rpc.url },
    { extra: { ...extra } },
  );
}

beforeAll(async () => {
  [rpc, facilitator, upstream] = await Promise.all([
    startStarknetRpcServer({ call: () => ["0x1"] }),
    startFacilitatorDouble(),
    startUpstream(),
  ]);
  off = await createGateway(gatewayConfigSchema.parse(config({})), {
    logger: createGatewayLogger("silent"),
  }).listen();
  const logger = createGatewayLogger("info", { write: (line: string) => void logLines.push(line) });
  on = await createGateway(gatewayConfigSchema.parse(config({ admin: { enabled: true, token: TOKEN } })), {
    logger,
  }).listen();
});

afterAll(async () => {
  await Promise.all([off.close(), on.close()]);
  await Promise.all([upstream.stop(), facilitator.close(), rpc.close()]);
});

const revocations = (gateway: RunningGateway) => `${gateway.url}/_x402/admin/revocations`;

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
    body,
  });
}

async function signInStatus(gateway: RunningGateway): Promise<number> {
  const header = await signInHeader(payer, gateway.url, "/member", PUBLIC_URL);
  const response = await fetch(`${gateway.url}/member`, { headers: { "sign-in-with-x": header } });
  await response.arrayBuffer();
  return response.status;
}

describe("the admin endpoint", () => {
  it("is off by default: its path is an ordinary upstream path", async () => {
    const before = upstream.seen.length;
    const response = await post(revocations(off), JSON.stringify({ payer: payer.address }));
    expect(response.status).toBe(200);
    expect(((await response.json()) as { url: string }).url).toBe("/_x402/admin/revocations");
    expect(upstream.seen.length).toBe(before + 1);
  });

  it("answers 401 admin_unauthorized without the right token, and forwards nothing", async () => {
    const before = upstream.seen.length;
    const body = JSON.stringify({ payer: payer.address });
    for (const authorization of [
      undefined,
      "",
      "Bearer",
      `Bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      TOKEN,
      `Bearer ${TOKEN.slice(1)}`,
    ]) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (authorization !== undefined) headers.authorization = authorization;
      const response = await fetch(revocations(on), { method: "POST", headers, body });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(await response.json()).toMatchObject({ error: "admin_unauthorized" });
    }
    expect(upstream.seen.length).toBe(before);
  });

  it("revokes with the token: 200, then the recognized payer must pay on its next request", async () => {
    expect(await signInStatus(on)).toBe(200);
    const response = await post(revocations(on), JSON.stringify({ payer: payer.address, reason: "refund" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { revoked: boolean; payer: string; until: string };
    expect(body).toMatchObject({ revoked: true, payer: payer.address.toLowerCase(), reason: "refund" });
    expect(Date.parse(body.until)).toBeGreaterThan(Date.now());
    expect(await signInStatus(on)).toBe(402);
    const metrics = await (await fetch(on.metricsUrl!)).text();
    expect(metrics).toMatch(/x402_gateway_revocations_total\{origin="local",outcome="applied"\} 1/);
    // The token never reaches a log line, not even its first characters.
    expect(logLines.some((line) => line.includes(TOKEN.slice(0, 6)))).toBe(false);
    expect(logLines.some((line) => line.includes(`Bearer ${TOKEN[0]}`))).toBe(false);
    expect(logLines.some((line) => line.includes('"authorization":"Bearer …[redacted'))).toBe(true);
    expect(logLines.some((line) => line.includes('"event":"payer_revoked"'))).toBe(true);
  });

  it("keeps everything under its path, and what a lenient server could read as it, from the upstream", async () => {
    const before = upstream.seen.length;
    const cases: Array<[string, string, number, string]> = [
      ["GET", "/_x402/admin/revocations", 405, "method_not_allowed"],
      ["POST", "/_x402/admin", 404, "not_found"],
      ["POST", "/_x402/admin/other", 404, "not_found"],
      ["POST", "/_X402/ADMIN/revocations/", 200, ""],
      ["POST", "/_x402/admin;x=1/revocations", 400, "invalid_path"],
      ["POST", "/_x402/%61dmin/revocations", 200, ""],
      ["POST", "/_x402/admin%2frevocations", 400, "invalid_path"],
    ];
    for (const [method, path, status, code] of cases) {
      const response = await fetch(`${on.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: method === "POST" ? JSON.stringify({ payer: payer.address }) : undefined,
      });
      expect(response.status, `${method} ${path}`).toBe(status);
      const body = (await response.json()) as { error?: string; revoked?: boolean };
      if (code) expect(body.error, path).toBe(code);
      else expect(body.revoked, path).toBe(true);
    }
    expect(upstream.seen.length).toBe(before);
  });

  it("refuses hostile bodies with a clear 400/413/415, forwarding nothing", async () => {
    const before = upstream.seen.length;
    const corpus: Array<[string, string, number, string, Record<string, string>?]> = [
      ["empty", "", 400, "invalid_revocation"],
      ["not JSON", "payer=0x1", 400, "invalid_revocation"],
      ["JSON null", "null", 400, "invalid_revocation"],
      ["an array", JSON.stringify([payer.address]), 400, "invalid_revocation"],
      ["a string", JSON.stringify(payer.address), 400, "invalid_revocation"],
      ["no payer", JSON.stringify({ reason: "refund" }), 400, "invalid_revocation"],
      ["short address", JSON.stringify({ payer: "0x1234" }), 400, "invalid_revocation"],
      ["address + junk", JSON.stringify({ payer: `${payer.address}00` }), 400, "invalid_revocation"],
      ["address with a newline", JSON.stringify({ payer: `${payer.address}\n` }), 400, "invalid_revocation"],
      ["payer a number", JSON.stringify({ payer: 1 }), 400, "invalid_revocation"],
      ["unknown field", JSON.stringify({ payer: payer.address, until: 0 }), 400, "invalid_revocation"],
      [
        "__proto__ field",
        `{"payer":"${payer.address}","__proto__":{"admin":true}}`,
        400,
        "invalid_revocation",
      ],
      [
        "reason with a control",
        JSON.stringify({ payer: payer.address, reason: "a\u0000b" }),
        400,
        "invalid_revocation",
      ],
      [
        "reason with a bidi override",
        JSON.stringify({ payer: payer.address, reason: "a\u202eb" }),
        400,
        "invalid_revocation",
      ],
      [
        "reason too long",
        JSON.stringify({ payer: payer.address, reason: "r".repeat(201) }),
        400,
        "invalid_revocation",
      ],
      ["invalid UTF-8", '{"payer":"\xff"}', 400, "invalid_revocation"],
      [
        "too large",
        JSON.stringify({ payer: payer.address, reason: "r".repeat(ADMIN_MAX_BODY_BYTES + 1) }),
        413,
        "payload_too_large",
      ],
      [
        "form body",
        `payer=${payer.address}`,
        415,
        "unsupported_media_type",
        { "content-type": "application/x-www-form-urlencoded" },
      ],
      [
        "no content type",
        JSON.stringify({ payer: payer.address }),
        415,
        "unsupported_media_type",
        { "content-type": "" },
      ],
    ];
    for (const [name, body, status, code, headers] of corpus) {
      const response = await post(revocations(on), body, headers);
      expect(response.status, name).toBe(status);
      expect(((await response.json()) as { error: string }).error, name).toBe(code);
    }
    expect(upstream.seen.length).toBe(before);
  });

  it("cuts a chunked body past ADMIN_MAX_BODY_BYTES with 413", async () => {
    const url = new URL(revocations(on));
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: {
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      for (let i = 0; i <= ADMIN_MAX_BODY_BYTES / 1024; i++) req.write("x".repeat(1024));
      req.end();
    });
    expect(status).toBe(413);
  });
});

describe("parseRevocationRequest", () => {
  it("accepts exactly the EVM addresses (0x + 40 hex digits, any case)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => {
        const valid = /^0x[0-9a-fA-F]{40}$/.test(text);
        let accepted = true;
        try {
          parseRevocationRequest({ payer: text });
        } catch (error) {
          accepted = false;
          expect(error).toMatchObject({ code: "invalid_revocation", status: 400 });
        }
        expect(accepted).toBe(valid);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^0x[0-9a-fA-F]{40}$/), (address) => {
        expect(parseRevocationRequest({ payer: address }).payer).toBe(address);
      }),
    );
  });

  it("never throws anything but invalid_revocation on arbitrary JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          parseRevocationRequest(value);
        } catch (error) {
          expect(error).toMatchObject({ code: "invalid_revocation" });
        }
      }),
    );
  });
});

describe("the admin config", () => {
  it("requires a token of at least 32 characters when enabled, and keeps priced routes out of its path", () => {
    const base = config({});
    expect(gatewayConfigSchema.safeParse({ ...base, admin: { enabled: true } }).success).toBe(false);
    expect(gatewayConfigSchema.safeParse({ ...base, admin: { enabled: true, token: "short" } }).success).toBe(
      false,
    );
    expect(
      gatewayConfigSchema.safeParse({
        ...base,
        admin: { enabled: true, token: TOKEN },
        routes: { "POST /_x402/admin/revocations": { price: "$0.01" } },
      }).success,
    ).toBe(false);
    expect(gatewayConfigSchema.parse({ ...base }).admin).toEqual({ enabled: false, path: "/_x402/admin" });
  });

  it("createGateway refuses an enabled admin endpoint it cannot serve with a ConfigError naming what is missing", () => {
    const parsed = gatewayConfigSchema.parse(config({ admin: { enabled: true, token: TOKEN } }));
    const logger = createGatewayLogger("silent");
    // A paywall given in code (GatewayDeps.paywall): with and without the revoke() the endpoint calls.
    const passThrough: GatewayPaywall = (_req, _res, next) => next();
    const revoking = Object.assign((...args: Parameters<GatewayPaywall>) => passThrough(...args), {
      revoke: () => Promise.reject(new Error("not called: the gateway is never served")),
    });
    const refusal = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return error;
      }
      throw new Error("createGateway accepted the config");
    };

    const tokenless = { ...parsed, admin: { ...parsed.admin, token: undefined } };
    const noToken = refusal(() => createGateway(tokenless, { logger, paywall: () => revoking }));
    const noRevoke = refusal(() => createGateway(parsed, { logger, paywall: () => passThrough }));

    for (const [error, missing] of [
      [noToken, "admin.token"],
      [noRevoke, "a paywall with revoke()"],
    ] as const) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(error).toMatchObject({
        code: "invalid_config",
        problems: [
          { file: "(gateway config)", path: "admin.enabled", message: `admin.enabled needs ${missing}` },
        ],
      });
    }
    // The same config with both is accepted (and never served here).
    expect(createGateway(parsed, { logger, paywall: () => revoking }).config.admin.enabled).toBe(true);
  });
});
