import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import express from "express";
import { ec } from "starknet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { x402, type X402Options } from "../../src/index.js";
import { createMaskedCborPayment, type CborPayment } from "../../src/payer/createCborPayment.js";
import { claimPartValues } from "../../src/protocol/cbor/Claim.js";
import { CborTag, type CborValue } from "../../src/protocol/cbor/CborValue.js";
import { decodeCanonical } from "../../src/protocol/cbor/decodeCanonical.js";
import {
  decodeCborSettleResponse,
  encodeCborFacilitatorRequest,
} from "../../src/protocol/cbor/facilitatorMessages.js";
import { MASK_INFO_OPENINGS, sealToFacilitator } from "../../src/protocol/cbor/masks/maskHpke.js";
import { HIDDEN_PAYER_OPENINGS_BYTES, encodePadded } from "../../src/protocol/cbor/masks/maskPadding.js";
import { decodePaymentSignature, encodePaymentSignature } from "../../src/protocol/cbor/PaymentSignature.js";
import {
  createSigningKey,
  verifySignature,
  type SignatureAlgorithm,
  type SigningKey,
} from "../../src/protocol/cbor/signatures.js";
import { decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { startUpstream, type TestUpstream } from "../gateway/support/startUpstream.js";
import { fetchCborOffer, postCborPayment } from "../support/cborClient.js";

/**
 * Issue #35 item 4: when the mask hides the subject, nothing the gateway or the handler sees verifies
 * against a public key, and no length tells the signing algorithm (docs/cbor.md, Revelation masks).
 */
const MERCHANT = "merchant:hidden";
const PRICE = 700n;
const now = () => Date.now();
let tick = 0;
const time = () => (Math.floor(now() / 1000) + tick++) * 1000;

const payers: Record<SignatureAlgorithm, SigningKey> = {
  ed25519: createSigningKey("ed25519"),
  "ml-dsa-65": createSigningKey("ml-dsa-65"),
};

const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
const ROUTES: X402Options["routes"] = {
  "GET /commit": {
    cbor: { ...cbor, revelationMask: { intent: { subject: "Commit" }, receipt: { subject: "Commit" } } },
  },
  "GET /sealed": {
    cbor: {
      ...cbor,
      revelationMask: { intent: { subject: "Encrypted", time: "Commit" }, receipt: { subject: "Commit" } },
    },
  },
  "GET /open": { cbor },
};
const PATHS = ["/commit", "/sealed"] as const;

let facilitator: RunningCborFacilitator;
beforeAll(async () => {
  facilitator = await startCborFacilitator({
    now,
    accounts: Object.values(payers).map((key) => ({
      publicKey: key.publicKey,
      balances: { USDC: 1_000_000n },
    })),
  });
});
afterAll(async () => facilitator?.stop());

function settings() {
  return {
    facilitator: { url: facilitator.url },
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    network: "eip155:31337" as const,
    routes: ROUTES,
  };
}

/** A paywall whose resource side records every header it was handed. */
interface Target {
  url: string;
  /** The headers the handler (x402()) or the upstream (gateway) saw, request by request. */
  handlerSaw(): IncomingHttpHeaders[];
  stop(): Promise<void>;
}

async function viaX402(): Promise<Target> {
  const saw: IncomingHttpHeaders[] = [];
  const app = express()
    .use(x402({ ...settings(), now }))
    .use((req, res) => {
      saw.push({ ...req.headers });
      res.json({ served: req.path });
    });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    handlerSaw: () => saw,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function viaGateway(): Promise<Target> {
  const upstream: TestUpstream = await startUpstream();
  const config = gatewayConfigSchema.parse({
    listen: { host: "127.0.0.1", port: 0 },
    ...settings(),
    upstreams: [{ url: upstream.url }],
    logging: { level: "silent" },
  });
  const gateway: RunningGateway = await createGateway(config, { paywallOverrides: { now } }).listen();
  return {
    url: gateway.url,
    handlerSaw: () => upstream.seen.map((entry) => entry.headers),
    stop: async () => {
      await gateway.close();
      await upstream.stop();
    },
  };
}

/** Every byte string inside `bytes`: itself, and, where it is CBOR, every byte string it holds (deeply). */
function byteStringsIn(bytes: Uint8Array, into: Uint8Array[] = []): Uint8Array[] {
  into.push(bytes);
  let value: CborValue;
  try {
    value = decodeCanonical(bytes, { maxBytes: 1 << 20 });
  } catch {
    return into;
  }
  const walk = (item: CborValue): void => {
    if (item instanceof Uint8Array) byteStringsIn(item, into);
    else if (Array.isArray(item)) item.forEach(walk);
    else if (item instanceof Map) [...item.values()].forEach(walk);
    else if (item instanceof CborTag) walk(item.value);
  };
  walk(value);
  return into;
}

/** Every header value as bytes, and base64-decoded too where it reads as base64. */
function headerBytes(headers: IncomingHttpHeaders | Headers): Uint8Array[] {
  const values: string[] = [];
  if (headers instanceof Headers) headers.forEach((value) => values.push(value));
  else
    for (const value of Object.values(headers))
      values.push(...(Array.isArray(value) ? value : [value ?? ""]));
  return values.flatMap((value) => [
    ...byteStringsIn(new TextEncoder().encode(value)),
    ...(/^[A-Za-z0-9+/]+=*$/.test(value) && value.length >= 16 ? byteStringsIn(decodeBase64(value)) : []),
  ]);
}

/** A known public key of some algorithm, and how to check a candidate signature over a message with it. */
interface Candidate {
  algorithm: string;
  verifies(message: Uint8Array, signature: Uint8Array): boolean;
}

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash("sha256").update(bytes).digest());

function serviceAuthCandidate(key: Uint8Array, algorithm: string): Candidate {
  return { algorithm, verifies: (message, signature) => verifySignature(key, message, signature) };
}

function secp256k1Candidate(): Candidate {
  const publicKey = secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey());
  return {
    algorithm: "secp256k1",
    verifies: (message, signature) => {
      if (signature.length !== 64 && signature.length !== 65) return false;
      const compact = signature.subarray(0, 64);
      return [sha256(message), keccak_256(message)].some((digest) => {
        try {
          return secp256k1.verify(compact, digest, publicKey, { lowS: false });
        } catch {
          return false;
        }
      });
    },
  };
}

function starkCandidate(): Candidate {
  const publicKey = ec.starkCurve.getPublicKey(ec.starkCurve.utils.randomPrivateKey());
  return {
    algorithm: "stark",
    verifies: (message, signature) => {
      if (signature.length < 64) return false;
      const felt = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
      const hash = felt(sha256(message)) >> 5n;
      for (let at = 0; at + 64 <= signature.length; at += 32) {
        try {
          const candidate = new ec.starkCurve.Signature(
            felt(signature.subarray(at, at + 32)),
            felt(signature.subarray(at + 32, at + 64)),
          );
          if (ec.starkCurve.verify(candidate, hash.toString(16), publicKey)) return true;
        } catch {
          // not a signature of this curve
        }
      }
      return false;
    },
  };
}

/** 50 known keys of every algorithm, the real payer's among them (the last). */
function fiftyCandidates(payer: SigningKey): Candidate[] {
  const others: Candidate[] = [];
  for (let index = 0; others.length < 49; index++) {
    const kind = index % 4;
    if (kind === 0) others.push(serviceAuthCandidate(createSigningKey("ed25519").publicKey, "ed25519"));
    else if (kind === 1)
      others.push(serviceAuthCandidate(createSigningKey("ml-dsa-65").publicKey, "ml-dsa-65"));
    else if (kind === 2) others.push(secp256k1Candidate());
    else others.push(starkCandidate());
  }
  return [...others, { ...serviceAuthCandidate(payer.publicKey, payer.algorithm), algorithm: "payer" }];
}

/** The candidates any of whose signatures over the intent (or its digest) is among `seen`. */
function identified(candidates: Candidate[], paymentIntent: Uint8Array, seen: Uint8Array[]): string[] {
  const messages = [paymentIntent, sha256(paymentIntent)];
  const unique = [...new Map(seen.map((bytes) => [Buffer.from(bytes).toString("hex"), bytes])).values()];
  return candidates
    .filter((candidate) =>
      unique.some((bytes) => messages.some((message) => candidate.verifies(message, bytes))),
    )
    .map((candidate) => candidate.algorithm);
}

const books = (payer: SigningKey) => ({
  payer: facilitator.payerBalance(payer.publicKey, "USDC"),
  merchant: facilitator.merchantBalance(MERCHANT, "USDC"),
  settlements: facilitator.book.settlements(),
});

describe.each([
  ["x402()", viaX402],
  ["x402-gateway serve", viaGateway],
] as const)("a hidden payer through %s", (_kind, start) => {
  let target: Target;
  beforeAll(async () => {
    target = await start();
  });
  afterAll(async () => target?.stop());

  async function pay(path: string, payer: SigningKey): Promise<CborPayment & { mask: string | undefined }> {
    const { response, offer } = await fetchCborOffer(`${target.url}${path}`);
    const mask = response.headers.get("x402-revelation-mask") ?? undefined;
    const payment = await createMaskedCborPayment({
      offer,
      key: payer,
      now: time,
      mask,
      facilitatorHpkeKey: facilitator.hpkeKey,
    });
    return { ...payment, mask };
  }

  it.each(
    PATHS.flatMap((path) => Object.values(payers).map((payer) => [path, payer.algorithm, payer] as const)),
  )(
    "%s paid by %s: 50 known keys, the payer's among them, verify nothing the gateway or the handler saw",
    async (path, _algorithm, payer) => {
      const before = books(payer);
      const payment = await pay(path, payer);
      const response = await postCborPayment(`${target.url}${path}`, payment.header);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      expect(books(payer).payer).toBe((before.payer ?? 0n) - PRICE);
      expect(books(payer).settlements).toBe(before.settlements + 1);
      const wire = decodePaymentSignature(payment.bytes);
      expect(wire.signature).toBeUndefined();
      // What the paywall saw (the header as sent, its answer) and what the resource was handed.
      const seen = [
        ...byteStringsIn(payment.bytes),
        ...headerBytes(response.headers),
        ...target.handlerSaw().flatMap(headerBytes),
      ];
      expect(identified(fiftyCandidates(payer), wire.paymentIntent, seen)).toEqual([]);
    },
  );

  it("the same detector names the payer of an open route (the test can tell)", async () => {
    const payer = payers.ed25519;
    const payment = await pay("/open", payer);
    const response = await postCborPayment(`${target.url}/open`, payment.header);
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    const wire = decodePaymentSignature(payment.bytes);
    expect(identified(fiftyCandidates(payer), wire.paymentIntent, byteStringsIn(payment.bytes))).toEqual([
      "payer",
    ]);
  });

  it.each(PATHS)("%s: Ed25519 and ML-DSA-65 payments are the same length, field by field", async (path) => {
    const [short, long] = await Promise.all([pay(path, payers.ed25519), pay(path, payers["ml-dsa-65"])]);
    expect(short.bytes.length).toBe(long.bytes.length);
    const fields = (bytes: Uint8Array) =>
      [...decodeCanonical(bytes, { expect: "map" }).entries()].map(([name, value]) => [
        name,
        (value as Uint8Array).length,
      ]);
    expect(fields(short.bytes)).toEqual(fields(long.bytes));
  });

  it.each(PATHS)(
    "%s: a tampered sealed opening, a clear signature or another key's sealed signature moves no money",
    async (path) => {
      const payer = payers.ed25519;
      const refused = async (header: string, code: string, reason: RegExp) => {
        const before = books(payer);
        const served = target.handlerSaw().length;
        const response = await postCborPayment(`${target.url}${path}`, header);
        await response.arrayBuffer();
        expect(response.status).toBe(402);
        expect(response.headers.get("x402-error")).toBe(code);
        expect(response.headers.get("x402-error-reason") ?? "").toMatch(reason);
        expect(books(payer)).toEqual(before);
        expect(target.handlerSaw().length).toBe(served);
      };
      const rewrap = (
        payment: CborPayment,
        change: (wire: ReturnType<typeof decodePaymentSignature>) => void,
      ) => {
        const wire = decodePaymentSignature(payment.bytes);
        change(wire);
        return Buffer.from(encodePaymentSignature(wire)).toString("base64");
      };
      const flipped = rewrap(await pay(path, payer), (wire) => {
        const openings = Uint8Array.from(wire.openings!);
        openings[100] = (openings[100] as number) ^ 1;
        wire.openings = openings;
      });
      await refused(flipped, "verification_failed", /hpke_open_failed/);
      const clear = rewrap(await pay(path, payer), (wire) => {
        wire.signature = payer.sign(wire.paymentIntent);
      });
      await refused(clear, "revelation_mask_violation", /sealed in the openings/);
      // The payer's own key and intent, a sealed signature made by another key: the facilitator refuses.
      const own = await pay(path, payer);
      const impostor = createSigningKey("ed25519");
      const wire = decodePaymentSignature(own.bytes);
      const { openings } = await resealedOpenings(own, impostor.sign(wire.paymentIntent));
      await refused(
        rewrap(own, (w) => {
          w.openings = openings;
        }),
        "verification_failed",
        /invalid_signature/,
      );
    },
  );
});

/**
 * The payer's openings again with `signature` instead of its own: the payer re-seals them (it knows
 * the salts), as a dishonest payer would. Built from the payment's salts and intent.
 */
async function resealedOpenings(
  payment: CborPayment,
  signature: Uint8Array,
): Promise<{ openings: Uint8Array }> {
  const values = claimPartValues(payment.intent);
  const entries: Array<[string, CborValue]> = [];
  if (payment.salts?.subject !== undefined && decodeWireSubjectIsCommit(payment))
    entries.push(["subject", [payment.salts.subject, values[0] as CborValue]]);
  if (payment.salts?.time !== undefined) entries.push(["time", [payment.salts.time, values[4] as CborValue]]);
  const plain = encodePadded(
    (pad) => new Map<string, CborValue>([...entries, ["signature", signature], ["pad", pad]]),
    HIDDEN_PAYER_OPENINGS_BYTES,
  );
  return {
    openings: await sealToFacilitator(facilitator.hpkeKey, plain, MASK_INFO_OPENINGS, payment.intent.context),
  };
}

function decodeWireSubjectIsCommit(payment: CborPayment): boolean {
  const parts = decodeCanonical(decodePaymentSignature(payment.bytes).paymentIntent, { expect: "array" });
  return parts[0] instanceof Map && parts[0].has("commit");
}

describe("the facilitator, asked directly", () => {
  let target: Target;
  beforeAll(async () => {
    target = await viaX402();
  });
  afterAll(async () => target?.stop());

  it.each(PATHS)(
    "%s: a clear signature beside the sealed one, or none sealed, is refused at /settle; nothing moves",
    async (path) => {
      const payer = payers["ml-dsa-65"];
      const { response, offer } = await fetchCborOffer(`${target.url}${path}`);
      const mask = response.headers.get("x402-revelation-mask")!;
      const payment = await createMaskedCborPayment({
        offer,
        key: payer,
        now: time,
        mask,
        facilitatorHpkeKey: facilitator.hpkeKey,
      });
      const wire = decodePaymentSignature(payment.bytes);
      const withClear = encodePaymentSignature({ ...wire, signature: payer.sign(wire.paymentIntent) });
      const unsealed = await resealedOpenings(payment, new Uint8Array(0));
      const withEmpty = encodePaymentSignature({ ...wire, openings: unsealed.openings });
      for (const [paymentSignature, reason] of [
        [withClear, /^mask_violation: a signature in clear/],
        [withEmpty, /^invalid_signature/],
      ] as const) {
        const before = books(payer);
        const answer = await fetch(`${facilitator.url}/settle`, {
          method: "POST",
          headers: { "content-type": "application/x402+cbor" },
          body: encodeCborFacilitatorRequest({
            paymentRequest: offer,
            paymentSignature,
            revelationMask: decodeBase64(mask),
          }),
        });
        const settled = decodeCborSettleResponse(new Uint8Array(await answer.arrayBuffer()));
        expect(settled.success).toBe(false);
        expect(settled.errorReason).toMatch(reason);
        expect(books(payer)).toEqual(before);
      }
    },
  );
});
