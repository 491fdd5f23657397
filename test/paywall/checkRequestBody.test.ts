import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bodySchemaOf } from "../../src/gateway/openApiBodySchemas.js";
import { compileBodyValidator, MAX_PROBLEMS } from "../../src/pricing/compileBodyValidator.js";
import { GatewayError } from "../../src/protocol/errors.js";
import { checkRequestBody } from "../../src/paywall/request/checkRequestBody.js";
import type { RequestFacts } from "../../src/paywall/request/RequestFacts.js";

// The requestBody check's parsing and validation path on plain inputs: request facts as an adapter
// gives them (bytes to read, or what a parser left), a hostile corpus, and generated bodies.
const facts = (bytes: Uint8Array | undefined, contentType = "application/json", parsedBody?: unknown) =>
  ({
    method: "POST",
    url: "/stake",
    headers: { "content-type": contentType, "content-length": String(bytes?.length ?? 0) },
    secure: false,
    protocol: "http",
    clientAddress: "127.0.0.1",
    mountPath: "",
    localAddress: "127.0.0.1",
    localPort: 80,
    bodyComplete: true,
    parsedBody,
    raw: {},
    readBody: async () => bytes,
  }) satisfies RequestFacts;

const ANYTHING = compileBodyValidator({});
const STAKE = compileBodyValidator({
  type: "object",
  required: ["amount"],
  additionalProperties: false,
  properties: { amount: { type: "string", pattern: "^[0-9]+$" } },
});
const utf8 = (text: string) => new TextEncoder().encode(text);

async function refusal(promise: Promise<void>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const gatewayError = error as GatewayError;
    expect(gatewayError.status).toBe(gatewayError.code === "payload_too_large" ? 413 : 400);
    return (gatewayError.details as { reason?: string }).reason ?? gatewayError.code;
  }
}

describe("checkRequestBody: hostile corpus", () => {
  const CASES: Array<[string, Uint8Array | undefined, string, string | undefined]> = [
    ["fits", utf8('{"amount":"1"}'), "application/json", undefined],
    ["+json type", utf8('{"amount":"1"}'), "application/vnd.api+json; charset=utf-8", undefined],
    ["empty", utf8(""), "application/json", "missing"],
    ["whitespace only", utf8("   "), "application/json", "not_json"],
    ["truncated", utf8('{"amount":'), "application/json", "not_json"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), "application/json", "not_json"],
    ["lone surrogate escape is JSON", utf8('{"amount":"\\ud800"}'), "application/json", "schema"],
    [
      "BOM then JSON",
      new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{"amount":"1"}')]),
      "application/json",
      undefined,
    ],
    ["text/plain", utf8('{"amount":"1"}'), "text/plain", "content_type"],
    ["form", utf8("amount=1"), "application/x-www-form-urlencoded", "content_type"],
    ["json in another type name", utf8('{"amount":"1"}'), "application/jsonx", "content_type"],
    ["__proto__", utf8('{"__proto__":{"polluted":1},"amount":"1"}'), "application/json", "schema"],
    ["constructor", utf8('{"constructor":{"prototype":{}},"amount":"1"}'), "application/json", "schema"],
    ["number amount", utf8('{"amount":1}'), "application/json", "schema"],
    ["null", utf8("null"), "application/json", "schema"],
    ["duplicate keys, last wins", utf8('{"amount":"x","amount":"2"}'), "application/json", undefined],
    ["deep nesting", utf8(`${"[".repeat(100_000)}${"]".repeat(100_000)}`), "application/json", "schema"],
    ["read before, nothing left", undefined, "application/json", "unreadable"],
  ];
  it.each(CASES)("%s", async (_, bytes, type, reason) => {
    expect(await refusal(checkRequestBody(facts(bytes, type), STAKE, 1 << 20))).toBe(reason);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("over the cap is 413 payload_too_large, as the adapter's read says", async () => {
    const req = facts(utf8("{}"));
    req.readBody = async () => {
      throw new GatewayError("payload_too_large", "over", { details: { limit: 1 } });
    };
    expect(await refusal(checkRequestBody(req, STAKE, 1))).toBe("payload_too_large");
  });

  it("what a parser left is checked as is; `{}` left by a parser that did not read the body is read", async () => {
    expect(
      await refusal(checkRequestBody(facts(undefined, "application/json", { amount: "1" }), STAKE, 10)),
    ).toBe(undefined);
    expect(
      await refusal(checkRequestBody(facts(undefined, "application/json", '{"amount":"1"}'), STAKE, 10)),
    ).toBe(undefined);
    expect(
      await refusal(checkRequestBody(facts(utf8('{"amount":"1"}'), "application/json", {}), STAKE, 99)),
    ).toBe(undefined);
    expect(await refusal(checkRequestBody(facts(undefined, "application/json", {}), STAKE, 99))).toBe(
      "schema",
    );
  });

  it("names at most MAX_PROBLEMS problems, each with a JSON Pointer", async () => {
    const many = compileBodyValidator({
      type: "object",
      required: Array.from({ length: 30 }, (_, i) => `k${i}`),
    });
    const problems = many({});
    expect(problems).toHaveLength(MAX_PROBLEMS);
    for (const problem of problems ?? []) expect(problem.path.startsWith("/")).toBe(true);
  });
});

describe("checkRequestBody: generated bodies", () => {
  it("any JSON value sent as JSON is read back and checked as that value", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        let seen: unknown;
        const capture = (body: unknown) => {
          seen = body;
          return undefined;
        };
        await checkRequestBody(facts(utf8(JSON.stringify(value))), capture, 1 << 20);
        expect(seen).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("any bytes, any content type: fits, or 400 invalid_request_body, never another failure", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 256 }),
        fc.constantFrom("application/json", "text/plain", "", "application/problem+json"),
        async (bytes, type) => {
          const reason = await refusal(checkRequestBody(facts(bytes, type), ANYTHING, 1 << 20));
          expect([undefined, "missing", "not_json", "content_type", "schema"]).toContain(reason);
        },
      ),
    );
  });
});

describe("bodySchemaOf: the operation's schema in an OpenAPI document", () => {
  const schema = { type: "object", required: ["amount"] };
  const doc = (paths: unknown, components: unknown = {}) => ({ openapi: "3.1.0", paths, components });
  const json = { content: { "application/json": { schema } } };

  it("finds it by method and path shape, parameters named differently, a $ref'd request body followed", () => {
    expect(bodySchemaOf(doc({ "/api/stake": { post: { requestBody: json } } }), "POST", "/api/stake")).toBe(
      schema,
    );
    expect(bodySchemaOf(doc({ "/u/{userId}": { put: { requestBody: json } } }), "PUT", "/u/:address")).toBe(
      schema,
    );
    const refd = doc(
      { "/x": { post: { requestBody: { $ref: "#/components/requestBodies/X" } } } },
      { requestBodies: { X: json } },
    );
    expect(bodySchemaOf(refd, "POST", "/x")).toBe(schema);
  });

  const HOSTILE: Array<[string, Record<string, unknown>, string | undefined, string, RegExp]> = [
    ["no such path", doc({}), "POST", "/x", /no operation POST \/x/],
    ["another method", doc({ "/x": { get: {} } }), "POST", "/x", /no operation/],
    ["no request body", doc({ "/x": { post: {} } }), "POST", "/x", /takes no JSON request body/],
    [
      "only XML",
      doc({ "/x": { post: { requestBody: { content: { "application/xml": { schema } } } } } }),
      "POST",
      "/x",
      /no JSON/,
    ],
    [
      "remote $ref",
      doc({ "/x": { post: { requestBody: { $ref: "https://evil.example/x" } } } }),
      "POST",
      "/x",
      /only local/,
    ],
    [
      "dangling $ref",
      doc({ "/x": { post: { requestBody: { $ref: "#/components/nope" } } } }),
      "POST",
      "/x",
      /not in the document/,
    ],
    [
      "$ref into __proto__",
      doc({ "/x": { post: { requestBody: { $ref: "#/__proto__/constructor" } } } }),
      "POST",
      "/x",
      /not in the document/,
    ],
    ["path item not an object", doc({ "/x": "post" }), "POST", "/x", /no operation/],
    [
      "route without a method",
      doc({ "/x": { post: { requestBody: json } } }),
      undefined,
      "/x",
      /without a method/,
    ],
  ];
  it.each(HOSTILE)("%s: refused with a reason", (_, document, method, path, reason) => {
    expect(() => bodySchemaOf(document, method, path)).toThrow(reason);
  });
});
