import { describe, expect, it } from "vitest";
import { readResource } from "../../src/mcp/readResource.js";

const response = (body: ConstructorParameters<typeof Response>[0], contentType?: string, status = 200) =>
  new Response(body, { status, headers: contentType === undefined ? {} : { "content-type": contentType } });

describe("readResource", () => {
  it.each([
    ["application/json", '{"a":1}'],
    ["application/problem+json; charset=utf-8", '{"title":"x"}'],
    ["text/html", "<p>héllo</p>"],
    ["application/xml", "<a/>"],
    ["application/vnd.api+json", "{}"],
  ])("returns %s as text", async (type, body) => {
    expect(await readResource(response(body, type))).toMatchObject({
      status: 200,
      contentType: type,
      body,
      encoding: "text",
      bytes: Buffer.byteLength(body),
      truncated: false,
    });
  });

  it("returns binary types, and text types that are not UTF-8, as base64", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff]);
    expect(await readResource(response(bytes, "image/png"))).toMatchObject({
      encoding: "base64",
      body: "iVBOR/8=",
    });
    expect(await readResource(response(new Uint8Array([0xff, 0xfe]), "text/plain"))).toMatchObject({
      encoding: "base64",
      body: "//4=",
    });
  });

  it("cuts a long body at the cap, without a broken character at the end", async () => {
    const text = "é".repeat(10); // 20 bytes
    const cut = await readResource(response(text, "text/plain"), 5);
    expect(cut).toMatchObject({ truncated: true, bytes: 5, encoding: "text", body: "éé" });
  });

  it("reads an empty body and a missing content type", async () => {
    expect(await readResource(response(null, undefined, 204))).toMatchObject({
      status: 204,
      body: "",
      bytes: 0,
      encoding: "text",
    });
  });
});
