import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPayingFetch } from "../../src/dev/createPayingFetch.js";
import { cborDevPayer } from "../../src/dev/cborDevPayers.js";
import { devAccount } from "../../src/dev/devAccounts.js";
import { signInWithoutPaying } from "../../src/dev/signInWithoutPaying.js";
import { payCborRoute } from "../../src/payer/payCborRoute.js";
import { InsecureTransportError } from "../../src/payer/InsecureTransportError.js";
import { connectInProcess, makeTestKeystore, removeTestKeystores } from "../mcp/support/payMcpClient.js";
import {
  PAYEE,
  resolvingFetch,
  startRecordingPayee,
  type RecordingPayee,
} from "./support/startRecordingPayee.js";

// Issue 31, item 6: no payer tool sends a PAYMENT-SIGNATURE or a sign-in over plain HTTP to a host that is
// not loopback. "payee.example" resolves to a real recording payee on 127.0.0.1 (as DNS would), so what a
// tool would have sent really arrives; the tools see a host that is not loopback.
const HOST = "payee.example";
const payer = devAccount(1);
let payee: RecordingPayee;
let other: RecordingPayee;
let base: string;
const dns = resolvingFetch(HOST);

beforeAll(async () => {
  payee = await startRecordingPayee();
  base = `http://${HOST}:${payee.port}`;
});

afterAll(async () => {
  await payee.close();
  await other?.close();
  await removeTestKeystores();
});

/** The payee's requests from here on. */
function since(): () => RecordingPayee["requests"] {
  const start = payee.requests.length;
  return () => payee.requests.slice(start);
}

describe("npm run pay (JSON, the official client): TLS is mandatory for the payment", () => {
  it("refuses to send the PAYMENT-SIGNATURE over plain HTTP to a host that is not loopback", async () => {
    const seen = since();
    const paying = createPayingFetch({ privateKey: payer.privateKey, allowedAssets: true, fetch: dns });
    const refusal = await paying.fetch(`${base}/json/eip155:84532`).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InsecureTransportError);
    expect((refusal as Error).message).toMatch(/plain HTTP to payee\.example:\d+, which is not loopback/);
    expect((refusal as Error).message).toContain("--allow-insecure-http");
    // The offer was asked for; nothing signed reached the payee.
    expect(seen()).toEqual([
      { method: "GET", path: "/json/eip155:84532", host: expect.any(String), signed: [] },
    ]);
  });

  it("--allow-insecure-http sends it for a test network, never for a mainnet", async () => {
    const seen = since();
    const paying = createPayingFetch({
      privateKey: payer.privateKey,
      allowedAssets: true,
      fetch: dns,
      allowInsecureHttp: true,
    });
    const paid = await paying.fetch(`${base}/json/eip155:84532`);
    expect(paid.status).toBe(200);
    const refusal = await paying.fetch(`${base}/json/eip155:8453`).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InsecureTransportError);
    expect((refusal as Error).message).toMatch(/test networks only, and eip155:8453 is not one/);
    expect(
      seen()
        .filter((request) => request.signed.length > 0)
        .map((request) => request.path),
    ).toEqual(["/json/eip155:84532"]);
  });

  it("over loopback it pays as before, and a signed request follows no redirect to another origin", async () => {
    other = await startRecordingPayee();
    const redirecting = await startRecordingPayee({
      redirectSignedTo: `http://127.0.0.1:${other.port}/json/eip155:84532`,
    });
    try {
      const paying = createPayingFetch({ privateKey: payer.privateKey, allowedAssets: true });
      const direct = await paying.fetch(`http://127.0.0.1:${other.port}/json/eip155:84532`);
      expect(direct.status).toBe(200);
      expect(other.signed()).toHaveLength(1);
      const answer = await paying.fetch(`http://127.0.0.1:${redirecting.port}/json/eip155:84532`);
      expect(answer.status).toBe(307);
      expect(redirecting.signed()).toHaveLength(1);
      expect(other.signed()).toHaveLength(1);
    } finally {
      await redirecting.close();
    }
  });
});

describe("npm run pay --sign-in: TLS is mandatory for the sign-in", () => {
  it("never sends SIGN-IN-WITH-X over plain HTTP to a host that is not loopback", async () => {
    const seen = since();
    const lines: string[] = [];
    const refusal = await signInWithoutPaying(`${base}/json/eip155:84532`, payer.privateKey, {
      fetch: dns,
      print: (line) => lines.push(line),
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InsecureTransportError);
    expect(seen().every((request) => request.signed.length === 0)).toBe(true);
    expect(seen()).toHaveLength(1);
  });

  it("--allow-insecure-http signs in on a test chain, not on a mainnet", async () => {
    const seen = since();
    const print = () => {};
    const test = await signInWithoutPaying(`${base}/json/eip155:84532`, payer.privateKey, {
      fetch: dns,
      print,
      allowInsecureHttp: true,
    });
    expect(test).toBe(0);
    const mainnet = await signInWithoutPaying(`${base}/json/eip155:8453`, payer.privateKey, {
      fetch: dns,
      print,
      allowInsecureHttp: true,
    }).catch((error: unknown) => error);
    expect(mainnet).toBeInstanceOf(InsecureTransportError);
    expect(seen().filter((request) => request.signed.length > 0)).toEqual([
      expect.objectContaining({ path: "/json/eip155:84532", signed: ["sign-in-with-x"] }),
    ]);
  });
});

describe("the CBOR payer (npm run pay --cbor, payCborRoute): TLS is mandatory, no setting", () => {
  it("never sends the CBOR PAYMENT-SIGNATURE over plain HTTP to a host that is not loopback", async () => {
    const seen = since();
    const refusal = await payCborRoute(`${base}/cbor`, {
      key: cborDevPayer("ed25519"),
      fetch: dns,
    }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(InsecureTransportError);
    expect(seen()).toEqual([expect.objectContaining({ method: "GET", path: "/cbor", signed: [] })]);
  });

  it("over loopback it pays as before", async () => {
    const paid = await payCborRoute(`http://127.0.0.1:${payee.port}/cbor`, { key: cborDevPayer("ed25519") });
    expect(paid.response.status).toBe(200);
    expect(payee.signed().at(-1)).toMatchObject({
      method: "POST",
      path: "/cbor",
      signed: ["payment-signature"],
    });
  });
});

describe("x402-pay-mcp: TLS is mandatory unless PAY_MCP_EVM_ALLOW_INSECURE_HTTP, on test networks", () => {
  async function mcp(env: Record<string, string> = {}) {
    const keystore = await makeTestKeystore(payer.privateKey, { kdf: "pbkdf2" });
    return connectInProcess({
      fetch: dns,
      env: {
        PAY_MCP_EVM_KEYSTORE_PATH: keystore.keystorePath,
        PAY_MCP_EVM_PASSWORD_PATH: keystore.passwordPath,
        PAY_MCP_EVM_NETWORKS: "eip155:84532",
        PAY_MCP_EVM_PAYEES: PAYEE,
        PAY_MCP_EVM_MAX_PER_PAYMENT: "1000000",
        PAY_MCP_EVM_MAX_PER_SESSION: "5000000",
        ...env,
      },
    });
  }

  it("answers unpayable insecure_transport and signs nothing", async () => {
    const seen = since();
    const client = await mcp();
    try {
      const call = await client.pay(`${base}/json/eip155:84532`);
      expect(call.structured).toMatchObject({
        outcome: "unpayable",
        code: "insecure_transport",
        setting: "PAY_MCP_EVM_ALLOW_INSECURE_HTTP",
      });
      expect(call.structured.signed).toBeUndefined();
      expect(seen().every((request) => request.signed.length === 0)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("with PAY_MCP_EVM_ALLOW_INSECURE_HTTP=true it pays on a test network", async () => {
    const seen = since();
    const client = await mcp({ PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "true" });
    try {
      const call = await client.pay(`${base}/json/eip155:84532`);
      expect(call.structured).toMatchObject({ outcome: "paid", network: "eip155:84532" });
      expect(seen().filter((request) => request.signed.length > 0)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it("refuses PAY_MCP_EVM_ALLOW_INSECURE_HTTP=true next to a mainnet, and signs nothing", async () => {
    const seen = since();
    const client = await mcp({
      PAY_MCP_EVM_ALLOW_INSECURE_HTTP: "true",
      PAY_MCP_EVM_NETWORKS: "eip155:84532,eip155:8453",
      PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND: "eip155:8453",
    });
    try {
      const call = await client.pay(`${base}/json/eip155:8453`);
      expect(call.structured).toMatchObject({
        outcome: "unpayable",
        code: "invalid_setting",
        setting: "PAY_MCP_EVM_ALLOW_INSECURE_HTTP",
      });
      expect(String(call.structured.message)).toMatch(/test networks only.*eip155:8453/);
      expect(seen().every((request) => request.signed.length === 0)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
