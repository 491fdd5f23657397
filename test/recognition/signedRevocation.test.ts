import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { privateKeyToAccount } from "viem/accounts";
import { gatewayConfigSchema, type GatewayConfigInput } from "../../src/config/gatewayConfigSchema.js";
import { MEMBER_PUBLIC_URL, memberRouteConfig } from "../support/memberRouteConfig.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { revokeReceipt } from "../../src/protocol/cbor/revokeReceipt.js";
import { receiptDigest, signReceipt } from "../../src/protocol/cbor/SettlementReceipt.js";
import { encodeSignedClaim, signClaim } from "../../src/protocol/cbor/SignedClaim.js";
import { createSigningKey, payerIdOf, type SigningKey } from "../../src/protocol/cbor/signatures.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { startStarknetRpcServer, type StarknetRpcServer } from "../support/starknetRpcServer.js";
import { signInHeader } from "../reliability/support/signIn.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { parseRevocationRequest } from "../../src/recognition/parseRevocationRequest.js";

// A refund's signed revocation (x402+cbor v0.3 `revokes` claim) carried to the admin endpoint as proof:
// accepted only from a facilitator key in revocation.trustedSigners; a refused one revokes nothing.

const TOKEN = "admin-token-for-the-signed-revocation-suite-0123";
const PUBLIC_URL = MEMBER_PUBLIC_URL;
const facilitatorKey = createSigningKey("ed25519");
const otherKey = createSigningKey("ed25519");
const cborPayer = createSigningKey("ed25519");

let rpc: StarknetRpcServer;
let facilitator: FacilitatorDouble;
let upstream: TestUpstream;
let trusting: RunningGateway;
let untrusting: RunningGateway;

function config(extra: Partial<GatewayConfigInput>): GatewayConfigInput {
  return memberRouteConfig(
    { facilitatorUrl: facilitator.url, upstreamUrl: upstream.url, rpcUrl: rpc.url },
    { extra: { admin: { enabled: true, token: TOKEN }, ...extra } },
  );
}

beforeAll(async () => {
  [rpc, facilitator, upstream] = await Promise.all([
    startStarknetRpcServer({ call: () => ["0x1"] }),
    startFacilitatorDouble(),
    startUpstream(),
  ]);
  const silent = { logger: createGatewayLogger("silent") };
  trusting = await createGateway(
    gatewayConfigSchema.parse(
      config({ revocation: { trustedSigners: [Buffer.from(facilitatorKey.publicKey).toString("hex")] } }),
    ),
    silent,
  ).listen();
  untrusting = await createGateway(gatewayConfigSchema.parse(config({})), silent).listen();
});

afterAll(async () => {
  await Promise.all([trusting.close(), untrusting.close()]);
  await Promise.all([upstream.stop(), facilitator.close(), rpc.close()]);
});

/** A receipt the facilitator signed for a 2500-unit USDC payment, and its revocation by `signer`. */
function refunded(signer: SigningKey = facilitatorKey) {
  const receipt = signReceipt(facilitatorKey, {
    subject: cborPayer.publicKey,
    predicate: "was_paid",
    object: "merchant:test",
    quantity: { currency: "USDC", amount: 2500n },
    time: 1_795_000_000,
    context: new Uint8Array(createHash("sha256").update("intent").digest()),
  });
  const revocation =
    signer === facilitatorKey
      ? revokeReceipt(receipt, facilitatorKey, { now: 1_795_000_600_000 })
      : signClaim(signer, {
          subject: cborPayer.publicKey,
          predicate: "revokes",
          object: receiptDigest(receipt),
          quantity: { currency: "USDC", amount: 2500n },
          time: 1_795_000_600,
          context: new Uint8Array(32),
        });
  return { receipt, base64: Buffer.from(encodeSignedClaim(revocation)).toString("base64") };
}

function revoke(gateway: RunningGateway, body: unknown): Promise<Response> {
  return fetch(`${gateway.url}/_x402/admin/revocations`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function signInStatus(gateway: RunningGateway, account = freshPayer()): Promise<number> {
  const header = await signInHeader(account, gateway.url, "/member", PUBLIC_URL);
  const response = await fetch(`${gateway.url}/member`, { headers: { "sign-in-with-x": header } });
  await response.arrayBuffer();
  return response.status;
}

function freshPayer() {
  return privateKeyToAccount(`0x${randomBytes(32).toString("hex")}`);
}

describe("a signed revocation carried to the admin endpoint", () => {
  it("from a trusted facilitator key: revokes the payer it names, and answers what it proves", async () => {
    const { receipt, base64 } = refunded();
    const named = payerIdOf(cborPayer.publicKey);
    const response = await revoke(trusting, {
      payer: named.toUpperCase().replace("ED25519", "ed25519"),
      reason: "refund",
      revocation: base64,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      revoked: true,
      payer: named,
      evidence: {
        receipt: receiptDigest(receipt),
        refund: "2500 USDC",
        revokedAt: new Date(1_795_000_600_000).toISOString(),
        signer: payerIdOf(facilitatorKey.publicKey),
        payer: named,
      },
    });
  });

  it("refuses, and revokes nothing, a proof about another payer than the one revoked", async () => {
    const payer = freshPayer();
    expect(await signInStatus(trusting, payer)).toBe(200);
    const { base64 } = refunded();
    const named = payerIdOf(cborPayer.publicKey);
    for (const other of [payer.address, payerIdOf(otherKey.publicKey)]) {
      const response = await revoke(trusting, { payer: other, reason: "refund", revocation: base64 });
      expect(response.status, other).toBe(400);
      const body = (await response.json()) as { error: string; details: { problems: string[] } };
      expect(body.error, other).toBe("invalid_revocation");
      expect(body.details.problems, other).toEqual([
        `revocation: names payer ${named}, not the payer revoked`,
      ]);
    }
    // The address is still let in: the refused revocation revoked nothing.
    expect(await signInStatus(trusting, payer)).toBe(200);
    // Without a proof, the operator may still revoke the address on its own word.
    expect((await revoke(trusting, { payer: payer.address, reason: "refund" })).status).toBe(200);
    expect(await signInStatus(trusting, payer)).toBe(402);
  });

  it("refuses, and revokes nothing, when the claim is not a trusted facilitator's revokes claim", async () => {
    const payer = freshPayer();
    const { receipt } = refunded();
    const receiptAsClaim = Buffer.from(
      encodeSignedClaim({ claim: receipt.claim, signature: receipt.signature, signer: receipt.signer }),
    ).toString("base64");
    const cases: Array<[string, RunningGateway, string, string]> = [
      ["signed by another key", trusting, refunded(otherKey).base64, "revocation: untrusted_signer"],
      ["not a signed claim", trusting, Buffer.from("hello").toString("base64"), "revocation: malformed"],
      ["a receipt, not a revocation", trusting, receiptAsClaim, "revocation: bad_signature"],
      [
        "no trustedSigners configured",
        untrusting,
        refunded().base64,
        "revocation: no trustedSigners configured",
      ],
    ];
    for (const [name, gateway, revocation, problem] of cases) {
      const response = await revoke(gateway, { payer: payer.address, revocation });
      expect(response.status, name).toBe(400);
      const body = (await response.json()) as { error: string; details: { problems: string[] } };
      expect(body.error, name).toBe("invalid_revocation");
      expect(body.details.problems, name).toContain(problem);
      expect(await signInStatus(gateway, payer), name).toBe(200);
    }
  });

  it("refuses a tampered revocation, whatever byte is flipped", async () => {
    const { base64 } = refunded();
    const bytes = Buffer.from(base64, "base64");
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const tampered = Buffer.from(bytes);
        tampered[at] = (tampered[at] as number) ^ flip;
        const payer = freshPayer();
        const response = await revoke(trusting, {
          payer: payer.address,
          revocation: tampered.toString("base64"),
        });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: string }).error).toBe("invalid_revocation");
      }),
      { numRuns: 40 },
    );
  });

  it("refuses a revocation field that is not base64, or too long", async () => {
    const payer = freshPayer();
    for (const revocation of ["", "not base64!", "A".repeat(16 * 1024 + 4), 42, { claim: "x" }]) {
      const response = await revoke(trusting, { payer: payer.address, revocation });
      expect(response.status, String(revocation).slice(0, 20)).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("invalid_revocation");
    }
    expect(await signInStatus(trusting, payer)).toBe(200);
  });
});

describe("parseRevocationRequest: the payer a signed revocation can name", () => {
  it("takes exactly ed25519:/ml-dsa-65: followed by 64 hex digits besides EVM addresses", () => {
    const prefix = fc.constantFrom("ed25519:", "ml-dsa-65:", "ED25519:", "rsa:", "ed25519", "");
    fc.assert(
      fc.property(
        prefix,
        fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEFgx:"), maxLength: 70 }),
        (head, tail) => {
          const payer = `${head}${tail}`;
          const valid = /^(ed25519|ml-dsa-65):[0-9a-fA-F]{64}$/.test(payer);
          let accepted = true;
          try {
            parseRevocationRequest({ payer });
          } catch (error) {
            accepted = false;
            expect(error).toMatchObject({ code: "invalid_revocation", status: 400 });
          }
          expect(accepted).toBe(valid);
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (key) => {
        const id = payerIdOf(key);
        expect(parseRevocationRequest({ payer: id }).payer).toBe(id);
      }),
    );
  });
});
