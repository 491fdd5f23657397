import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayConfigSchema } from "../../src/config/gatewayConfigSchema.js";
import { createGateway, type Gateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { createGatewayLogger } from "../../src/gateway/createGatewayLogger.js";
import { decodeBase64Json, encodeBase64Json } from "../../src/protocol/base64Json.js";
import { decodeExtensionResponses } from "../../src/protocol/decodeExtensionResponses.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { evmPayment, header, PAY_TO } from "../support/payments.js";
import { startUpstream, type TestUpstream } from "./support/startUpstream.js";

describe("decodeExtensionResponses: a facilitator's EXTENSION-RESPONSES header", () => {
  it.each([
    ["absent", null, undefined],
    ["empty", "", undefined],
    ["not base64", "%%%", undefined],
    ["base64 of not JSON", Buffer.from("nope").toString("base64"), undefined],
    ["a JSON array", encodeBase64Json([1]), undefined],
    ["a JSON string", encodeBase64Json("x"), undefined],
    ["over 8 KiB", encodeBase64Json({ bazaar: { status: "x".repeat(9000) } }), undefined],
    [
      "a Bazaar rejection: only the logged fields, as text",
      encodeBase64Json({
        bazaar: { status: "rejected", rejectedReason: "missing_schema", secret: "k", code: 7 },
      }),
      { bazaar: { status: "rejected", rejectedReason: "missing_schema", code: "7" } },
    ],
    ["a value that is no object", encodeBase64Json({ bazaar: "accepted" }), { bazaar: {} }],
    // The project's JSON decoder drops `__proto__` keys: nothing reaches an object's prototype.
    ["a __proto__ key", Buffer.from('{"__proto__":{"status":"x"}}').toString("base64"), {}],
  ])("%s", (_name, text, expected) => {
    const decoded = decodeExtensionResponses(text);
    expect(decoded).toEqual(expected);
    if (decoded !== undefined) expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });

  it("never throws, and keeps only short text fields, whatever the header", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue().map(encodeBase64Json)), (text) => {
        const decoded = decodeExtensionResponses(text);
        for (const response of Object.values(decoded ?? {}))
          for (const [field, value] of Object.entries(response)) {
            expect(["status", "rejectedReason", "reason", "code"]).toContain(field);
            expect(typeof value === "string" && value.length <= 200).toBe(true);
          }
      }),
      { numRuns: 500 },
    );
  });
});

describe("the gateway logs and counts what EXTENSION-RESPONSES says (diagnostics for Bazaar listings)", () => {
  let facilitator: FacilitatorDouble;
  let upstream: TestUpstream;
  let gateway: Gateway;
  let running: RunningGateway;
  const lines: string[] = [];

  beforeAll(async () => {
    [facilitator, upstream] = await Promise.all([startFacilitatorDouble(), startUpstream()]);
    const config = gatewayConfigSchema.parse({
      listen: { host: "127.0.0.1", port: 0 },
      facilitator: { url: facilitator.url },
      payTo: PAY_TO,
      network: "eip155:84532",
      upstreams: [{ url: upstream.url }],
      routes: { "GET /r": { price: "$0.001" } },
      metrics: { enabled: true, listen: { host: "127.0.0.1", port: 0 } },
    });
    const logger = createGatewayLogger("info", { write: (line: string) => void lines.push(line) });
    gateway = createGateway(config, { logger });
    running = await gateway.listen();
  });
  afterAll(async () => {
    await running?.close();
    await Promise.all([facilitator?.close(), upstream?.stop()]);
  });

  it("a paid request whose /settle answer carries a Bazaar rejection: logged (allowlisted fields) and counted; the payment is served", async () => {
    facilitator.replyHeaders = {
      "EXTENSION-RESPONSES": encodeBase64Json({
        bazaar: { status: "rejected", rejectedReason: "invalid_output_schema", token: "do-not-log" },
      }),
    };
    const offer = await fetch(`${running.url}/r`);
    const required = decodeBase64Json(offer.headers.get("payment-required") ?? "") as {
      accepts: Parameters<typeof evmPayment>[0][];
      resource: unknown;
    };
    const paid = await fetch(`${running.url}/r`, {
      headers: {
        "PAYMENT-SIGNATURE": header({ ...evmPayment(required.accepts[0]!), resource: required.resource }),
      },
    });
    expect(paid.status).toBe(200);
    const logged = lines.filter((line) => line.includes("facilitator extension responses"));
    expect(logged.length).toBe(2); // /verify and /settle both carried it
    expect(logged.join("")).toContain("invalid_output_schema");
    expect(logged.join("")).not.toContain("do-not-log");
    const text = await gateway.metrics.registry.metrics();
    expect(text).toContain(
      'x402_gateway_facilitator_extension_responses_total{endpoint="settle",extension="bazaar",status="rejected"} 1',
    );
    expect(text).toContain(
      'x402_gateway_facilitator_extension_responses_total{endpoint="verify",extension="bazaar",status="rejected"} 1',
    );
  });
});
