import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCborFacilitator, type RunningCborFacilitator } from "../../src/dev/startCborFacilitator.js";
import { createSigningKey } from "../../src/protocol/cbor/signatures.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { gatewayConfig } from "../gateway/support/gatewayConfig.js";
import { CBOR, fetchCborOffer, signedIntent } from "../support/cborClient.js";
import { startRecordingUpstream, type RecordingUpstream } from "./support/startRecordingUpstream.js";

const MERCHANT = "merchant:smuggling";
const PRICE = 1_000n;
const payer = createSigningKey("ed25519");
/** What an attacker hides in the body of a paid request: a priced POST, with spoofed forwarding headers. */
const SMUGGLED = [
  "POST /api/stake HTTP/1.1",
  "Host: upstream",
  "X-Forwarded-For: 6.6.6.6",
  "X-HTTP-Method-Override: POST",
  "Content-Type: application/json",
  "Content-Length: 39",
  "",
  '{"amount":"5000000000000000000","x":1}',
].join("\r\n");

let facilitator: RunningCborFacilitator;
let upstream: RecordingUpstream;
let gateway: RunningGateway;
let tick = 0;

beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([
    startCborFacilitator({ accounts: [{ publicKey: payer.publicKey, balances: { USDC: 1_000_000n } }] }),
    startRecordingUpstream(),
  ]);
  const cbor = { currency: "USDC" as const, amount: PRICE.toString() };
  const config = gatewayConfig({
    upstreamUrl: upstream.url,
    cbor: { merchantPseudonym: MERCHANT, facilitator: { url: facilitator.url } },
    routes: { "GET /api/apy": { cbor }, "POST /api/stake": { cbor: { ...cbor, amount: "5000" } } },
  });
  gateway = await createGateway(config).listen();
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.stop(), facilitator?.stop()]);
});

/** A fresh, valid CBOR payment for `GET /api/apy` (each its own second, so each is its own intent). */
async function payment(): Promise<string> {
  const { offer } = await fetchCborOffer(`${gateway.url}/api/apy`);
  return signedIntent(offer, payer, {}, { time: Math.floor(Date.now() / 1000) - 30 + tick++ });
}

/** Write `bytes` to the gateway as they are; resolve with everything it answered once it closes. */
function sendRaw(bytes: string): Promise<string> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    // Written, not ended: a half-closed client is one Node stops answering.
    socket.write(bytes);
  });
}

const statusOf = (answer: string) => Number(answer.split("\r\n")[0]?.split(" ")[1] ?? 0);
const chunked = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;

interface Books {
  requests: number;
  settles: number;
  balance: bigint | undefined;
}
const books = (): Books => ({
  requests: upstream.requests().length,
  settles: facilitator.calls.settle,
  balance: facilitator.payerBalance(payer.publicKey, "USDC"),
});

/** The upstream never read a smuggled head, nor the headers the smuggled head spoofed. */
function expectNothingSmuggled(): void {
  for (const { head, requestLine } of upstream.requests()) {
    expect(requestLine).not.toMatch(/\/api\/stake/);
    expect(head).not.toMatch(/6\.6\.6\.6/);
    expect(head.toLowerCase()).not.toMatch(/x-http-method-override/);
  }
}

describe("request smuggling through a paid CBOR request (issue 20, item 1)", () => {
  it.each([
    ["Content-Length", (body: string) => ({ framing: `Content-Length: ${body.length}`, body })],
    ["chunked", (body: string) => ({ framing: "Transfer-Encoding: chunked", body: chunked(body) })],
  ])(
    "a paid CBOR GET whose %s body is another request: 400, nothing verified or settled, nothing reaches the upstream",
    async (_framing, frame) => {
      const before = books();
      const { framing, body } = frame(SMUGGLED);
      const answer = await sendRaw(
        [
          "GET /api/apy HTTP/1.1",
          "Host: gateway",
          `Accept: ${CBOR}`,
          `Content-Type: ${CBOR}`,
          `PAYMENT-SIGNATURE: ${await payment()}`,
          framing,
          "Connection: close",
          "",
          body,
        ].join("\r\n"),
      );
      expect(statusOf(answer)).toBe(400);
      // The client asked for CBOR: its refusal is a CBOR error body (the code is a CBOR text string in it).
      expect(answer).toMatch(/\r\ncontent-type: application\/x402\+cbor\r\n/i);
      expect(answer).toMatch(/eerror.body_not_allowed/);
      expect(books()).toEqual(before);
      expectNothingSmuggled();
    },
  );

  it("the paid CBOR POST retry (no body) reaches the upstream as exactly one GET, settled once", async () => {
    const before = books();
    const answer = await sendRaw(
      [
        "POST /api/apy HTTP/1.1",
        "Host: gateway",
        `Accept: ${CBOR}`,
        `Content-Type: ${CBOR}`,
        `PAYMENT-SIGNATURE: ${await payment()}`,
        "Content-Length: 0",
        "Connection: close",
        "",
        "",
      ].join("\r\n"),
    );
    expect(statusOf(answer)).toBe(200);
    expect(
      upstream
        .requests()
        .slice(before.requests)
        .map((r) => r.requestLine),
    ).toEqual(["GET /api/apy HTTP/1.1"]);
    expect(facilitator.calls.settle).toBe(before.settles + 1);
    expect(facilitator.payerBalance(payer.publicKey, "USDC")).toBe((before.balance ?? 0n) - PRICE);
    expectNothingSmuggled();
  });

  it.each([
    ["Content-Length", (body: string) => ({ framing: `Content-Length: ${body.length}`, body })],
    ["chunked", (body: string) => ({ framing: "Transfer-Encoding: chunked", body: chunked(body) })],
  ])(
    "a free POST carrying a CBOR payment and a %s body: forwarded framed, one head, the body intact, nothing settled",
    async (_framing, frame) => {
      const before = books();
      const { framing, body } = frame(SMUGGLED);
      const answer = await sendRaw(
        [
          "POST /api/apy HTTP/1.1",
          "Host: gateway",
          `Content-Type: ${CBOR}`,
          `PAYMENT-SIGNATURE: ${await payment()}`,
          framing,
          "Connection: close",
          "",
          body,
        ].join("\r\n"),
      );
      expect(statusOf(answer)).toBe(200);
      const received = upstream.requests().slice(before.requests);
      expect(received.map((r) => r.requestLine)).toEqual(["POST /api/apy HTTP/1.1"]);
      expect(received[0]?.body.toString("latin1")).toBe(SMUGGLED);
      expect(facilitator.calls.settle).toBe(before.settles);
      expectNothingSmuggled();
    },
  );

  it.each(["GET", "HEAD", "DELETE", "OPTIONS"])(
    "a free %s with a body is refused (400 body_not_allowed) and never forwarded",
    async (method) => {
      const before = books();
      const answer = await sendRaw(
        [
          `${method} /free HTTP/1.1`,
          "Host: gateway",
          `Content-Length: ${SMUGGLED.length}`,
          "Connection: close",
          "",
          SMUGGLED,
        ].join("\r\n"),
      );
      expect(statusOf(answer)).toBe(400);
      // A HEAD answer has no body to name the code.
      if (method !== "HEAD") expect(answer).toMatch(/body_not_allowed/);
      expect(books()).toEqual(before);
    },
  );

  it.each([
    ["Transfer-Encoding: gzip, chunked", "0\r\n\r\n"],
    ["Transfer-Encoding: chunked\r\nContent-Length: 5", "0\r\n\r\n"],
    ["Content-Length: 5\r\nContent-Length: 6", "abcdef"],
  ])("a POST framed as %j is refused before anything is forwarded", async (framing, body) => {
    const before = books();
    const answer = await sendRaw(
      ["POST /free HTTP/1.1", "Host: gateway", framing, "Connection: close", "", body].join("\r\n"),
    );
    expect(statusOf(answer)).toBe(400);
    expect(books()).toEqual(before);
  });
});
