import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  createSIWxPayload,
  encodeSIWxHeader,
  type SIWxExtensionInfo,
  type SupportedChain,
} from "@x402/extensions/sign-in-with-x";
import { createSignInGate } from "../../src/recognition/createSignInGate.js";
import type { NonceStore } from "../../src/recognition/NonceStore.js";
import { RedisNonceStore } from "../../src/recognition/RedisNonceStore.js";
import type { SiwxSignInGate } from "../../src/recognition/SiwxSignInGate.js";
import type { SignInContext } from "../../src/recognition/SignInGate.js";
import { GatewayError } from "../../src/protocol/errors.js";
import type { Logger } from "../../src/common/Logger.js";
import { encodeBase64Json } from "../../src/protocol/base64Json.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";

// Well-known anvil dev keys: test-only.
const payer = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const stranger = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");

const RESOURCE = "http://api.test:8080/report?id=7";
const T0 = Date.parse("2026-11-22T02:30:00.000Z");

let server: StarknetRpcServer;
let recognized: Set<string>;
let clock: { now: number };
let gate: SiwxSignInGate;
const logs: Array<{ level: string; obj: object }> = [];

function context(overrides: Partial<SignInContext> = {}): SignInContext {
  return {
    resourceUrl: RESOURCE,
    host: "api.test:8080",
    networks: ["eip155:84532"],
    now: new Date(clock.now),
    ...overrides,
  };
}

beforeEach(async () => {
  recognized = new Set([payer.address.toLowerCase()]);
  server = await startStarknetRpcServer({
    call: ({ calldata }) => [recognized.has(calldata[0] ?? "") ? "0x1" : "0x0"],
  });
  clock = { now: T0 };
  logs.length = 0;
  const logger = Object.fromEntries(
    ["debug", "info", "warn", "error"].map((level) => [level, (obj: object) => logs.push({ level, obj })]),
  ) as unknown as Logger;
  gate = createSignInGate(
    { rpcUrl: server.url, contract: "0x0123abc", timeoutMs: 500 },
    { now: () => clock.now, logger },
  );
});
afterEach(async () => {
  expect(server.validationFailures).toEqual([]);
  await server.close();
});

/** The challenge of a fresh offer. */
async function challenge(
  ctx = context(),
): Promise<{ info: SIWxExtensionInfo; supportedChains: SupportedChain[] }> {
  const extensions = await gate.offer(ctx);
  return extensions["sign-in-with-x"] as { info: SIWxExtensionInfo; supportedChains: SupportedChain[] };
}

/** A header made by the official client helper for a fresh offer. */
async function signedHeader(signer = payer, ctx = context()): Promise<string> {
  const { info, supportedChains } = await challenge(ctx);
  const chain = supportedChains[0]!;
  const payload = await createSIWxPayload(
    { ...info, chainId: chain.chainId, type: chain.type },
    signer,
    RESOURCE,
  );
  return encodeSIWxHeader(payload);
}

function decode(header: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as Record<string, unknown>;
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe("SiwxSignInGate.offer", () => {
  it("offers a fresh challenge bound to the host and resource, on the route's EVM networks", async () => {
    const first = await challenge(
      context({ networks: ["eip155:84532", "eip155:8453", "eip155:84532", "solana:x"] }),
    );
    const second = await challenge();
    expect(first.info).toEqual({
      domain: "api.test:8080",
      uri: RESOURCE,
      version: "1",
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      issuedAt: "2026-11-22T02:30:00.000Z",
      expirationTime: "2026-11-22T02:35:00.000Z",
      resources: [RESOURCE],
    });
    expect(first.supportedChains).toEqual([
      { chainId: "eip155:84532", type: "eip191" },
      { chainId: "eip155:8453", type: "eip191" },
    ]);
    expect(second.info.nonce).not.toBe(first.info.nonce);
  });

  it("offers nothing on a route with no EVM network", async () => {
    expect(await gate.offer(context({ networks: ["solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"] }))).toEqual({});
  });
});

describe("SiwxSignInGate.admit", () => {
  it("admits a recognized payer (0x1) and logs it", async () => {
    expect(await gate.admit(await signedHeader(), context())).toEqual({
      recognized: true,
      address: payer.address,
    });
    expect(server.calls()[0]?.calldata).toEqual([payer.address.toLowerCase()]);
    expect(gate.stats().signIns.recognized).toBe(1);
    expect(logs.some((log) => (log.obj as { event?: string }).event === "recognized")).toBe(true);
  });

  it("does not admit a proven payer the chain does not recognize (0x0); says it is proven (a pass may let it in)", async () => {
    expect(await gate.admit(await signedHeader(stranger), context())).toEqual({
      recognized: false,
      address: stranger.address,
      proven: true,
    });
  });

  it("rejects a replayed proof", async () => {
    const header = await signedHeader();
    await gate.admit(header, context());
    const error = await refusal(gate.admit(header, context()));
    expect([error.status, error.code, error.details.reason]).toEqual([
      401,
      "sign_in_rejected",
      "nonce_unknown_or_used",
    ]);
  });

  it("rejects a proof for another domain or another resource", async () => {
    const header = await signedHeader();
    const wrongHost = await refusal(gate.admit(header, context({ host: "evil.test:8080" })));
    expect([wrongHost.code, wrongHost.details.reason]).toEqual(["sign_in_rejected", "domain_mismatch"]);
    const wrongUri = await refusal(
      gate.admit(header, context({ resourceUrl: "http://api.test:8080/other" })),
    );
    expect(wrongUri.details.reason).toBe("uri_mismatch");
    // Refusals do not burn the nonce: the genuine request still goes through.
    expect((await gate.admit(header, context())).recognized).toBe(true);
  });

  it("rejects an expired proof, one issued in the future, and one not valid yet", async () => {
    const header = await signedHeader();
    clock.now += 5 * 60_000;
    const expired = await refusal(gate.admit(header, context()));
    expect(expired.details.reason).toBe("expired");
    clock.now = T0;
    const future = await signedHeader(payer, context({ now: new Date(T0 + 10 * 60_000) }));
    expect((await refusal(gate.admit(future, context()))).details.reason).toBe("issued_in_future");
  });

  it("rejects a signature of another address", async () => {
    const header = await signedHeader(stranger);
    const forged = encodeBase64Json({ ...decode(header), address: payer.address });
    const error = await refusal(gate.admit(forged, context()));
    expect([error.status, error.details.reason]).toEqual([401, "bad_signature"]);
    expect(server.calls()).toEqual([]);
  });

  it("rejects a proof whose signed fields were changed", async () => {
    const header = await signedHeader();
    const tampered = encodeBase64Json({ ...decode(header), statement: "pay nothing ever" });
    expect((await refusal(gate.admit(tampered, context()))).details.reason).toBe("bad_signature");
  });

  it("rejects a nonce it never issued", async () => {
    const header = await signedHeader();
    const other = createSignInGate({ rpcUrl: server.url, contract: "0x0123abc" }, { now: () => clock.now });
    expect((await refusal(other.admit(header, context()))).details.reason).toBe("nonce_unknown_or_used");
  });

  it("rejects a chain the route does not take, and signature types other than eip191", async () => {
    const header = await signedHeader();
    const chain = await refusal(gate.admit(header, context({ networks: ["eip155:1"] })));
    expect(chain.details.reason).toBe("unsupported_chain");
    const type = await refusal(
      gate.admit(encodeBase64Json({ ...decode(header), type: "ed25519" }), context()),
    );
    expect(type.details.reason).toBe("unsupported_signature_type");
  });

  it.each([
    ["not base64", "%%%"],
    ["base64 of not JSON", Buffer.from("hello").toString("base64")],
    ["a JSON array", encodeBase64Json([1, 2])],
    ["a missing signature", encodeBase64Json({ domain: "api.test:8080" })],
  ])("answers 400 invalid_sign_in to %s", async (_name, header) => {
    const error = await refusal(gate.admit(header, context()));
    expect([error.status, error.code]).toEqual([400, "invalid_sign_in"]);
    expect(gate.stats().signIns.invalid).toBe(1);
  });

  it("answers 400 to a field with a line break or a bad checksum", async () => {
    const payload = decode(await signedHeader());
    const newline = await refusal(
      gate.admit(encodeBase64Json({ ...payload, statement: "a\nURI: x" }), context()),
    );
    expect(newline.code).toBe("invalid_sign_in");
    const address = String(payload.address);
    const letter = address.slice(2).search(/[a-fA-F]/) + 2;
    const flipped = address[letter]!;
    const badChecksum =
      address.slice(0, letter) +
      (flipped === flipped.toLowerCase() ? flipped.toUpperCase() : flipped.toLowerCase()) +
      address.slice(letter + 1);
    const checksum = await refusal(
      gate.admit(encodeBase64Json({ ...payload, address: badChecksum }), context()),
    );
    expect(checksum.code).toBe("invalid_sign_in");
  });

  it("fails closed when the chain cannot be asked, but serves a recent 0x1 stale", async () => {
    await gate.admit(await signedHeader(), context());
    server.setMode("http500");
    clock.now += 10 * 60_000; // past the positive TTL, within stale-if-error
    expect(await gate.admit(await signedHeader(payer, context()), context())).toMatchObject({
      recognized: true,
    });
    recognized.add(stranger.address.toLowerCase());
    expect(await gate.admit(await signedHeader(stranger, context()), context())).toMatchObject({
      recognized: false,
    });
    expect(gate.stats().recognition).toMatchObject({ staleServed: 1, errors: 2 });
  });
});

describe("SiwxSignInGate with shared nonces", () => {
  it("accepts at one instance a challenge issued by another (Redis), once", async () => {
    const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const keyPrefix = `test:siwx-gate:${Date.now()}:`;
    const stores = [
      new RedisNonceStore({ redis: url, keyPrefix }),
      new RedisNonceStore({ redis: url, keyPrefix }),
    ];
    try {
      const settings = { rpcUrl: server.url, contract: "0x0123abc", signInSecret: "s".repeat(32) };
      const [a, b] = stores.map((nonceStore) =>
        createSignInGate(settings, { now: () => clock.now, nonceStore }),
      );
      gate = a!;
      const header = await signedHeader();
      expect(await b!.admit(header, context())).toEqual({ recognized: true, address: payer.address });
      expect((await refusal(a!.admit(header, context()))).details.reason).toBe("nonce_unknown_or_used");
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("issues challenges without storing anything, and fails closed when the used-nonce store is down", async () => {
    const used: string[] = [];
    const down: NonceStore = {
      use: (nonce) => {
        used.push(nonce);
        return Promise.reject(new Error("ECONNREFUSED"));
      },
    };
    const lonely = createSignInGate(
      { rpcUrl: server.url, contract: "0x0123abc" },
      { now: () => clock.now, nonceStore: down },
    );
    for (let i = 0; i < 100; i++) await lonely.offer(context());
    expect(used).toEqual([]);
    gate = lonely;
    const header = await signedHeader();
    await expect(lonely.admit(header, context())).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("SiwxSignInGate with a public client (contract wallets)", () => {
  const wallet = "0x1111111111111111111111111111111111111111";

  /** A header claiming `wallet` with a signature only a contract could vouch for. */
  async function contractWalletHeader(g: SiwxSignInGate): Promise<string> {
    gate = g;
    const payload = decode(await signedHeader(stranger));
    return encodeBase64Json({ ...payload, address: wallet });
  }

  it("asks the public client when the signature is not the address's own (EIP-1271)", async () => {
    recognized.add(wallet);
    const asked: string[] = [];
    const publicClient = {
      verifyMessage: async ({ address }: { address: string }) => {
        asked.push(address);
        return address.toLowerCase() === wallet;
      },
    };
    const g = createSignInGate(
      { rpcUrl: server.url, contract: "0x1" },
      { now: () => clock.now, publicClient },
    );
    expect(await g.admit(await contractWalletHeader(g), context())).toEqual({
      recognized: true,
      address: wallet,
    });
    expect(asked).toEqual([wallet]);
    // An EOA signature is checked locally: the public client is not asked.
    await g.admit(await signedHeader(payer), context());
    expect(asked).toEqual([wallet]);
  });

  it("fails closed (not recognized, no error) when the public client cannot be reached", async () => {
    const publicClient = { verifyMessage: () => Promise.reject(new Error("ECONNREFUSED")) };
    const g = createSignInGate(
      { rpcUrl: server.url, contract: "0x1" },
      { now: () => clock.now, publicClient },
    );
    expect(await g.admit(await contractWalletHeader(g), context())).toEqual({
      recognized: false,
      address: wallet,
    });
    expect(server.calls()).toEqual([]);
  });

  it("takes a viem public client as it is", () => {
    const publicClient = createPublicClient({ transport: http("http://127.0.0.1:9") });
    expect(createSignInGate({ rpcUrl: server.url, contract: "0x1" }, { publicClient })).toBeDefined();
  });
});
