import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { Base64Error, decodeBase64 } from "../../src/protocol/decodeBase64.js";
import { bytesOfBase64, webBytesOfBase64 } from "../../src/common/bytes.js";

/** The decoder as first written with regexes: the table walk must agree with it on every input. */
function regexDecode(text: string): Buffer {
  const value = text.trim();
  if (value.length === 0) throw new Base64Error("empty value");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) && !/^[A-Za-z0-9_-]*={0,2}$/.test(value))
    throw new Base64Error("not base64 or base64url");
  const unpadded = value.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) throw new Base64Error("truncated base64");
  return Buffer.from(unpadded.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

function outcome(decode: (text: string) => Uint8Array, text: string): string {
  try {
    return `bytes ${Buffer.from(decode(text)).toString("hex")}`;
  } catch (error) {
    expect(error).toBeInstanceOf(Base64Error);
    return `error ${(error as Error).message}`;
  }
}

describe("decodeBase64", () => {
  it.each([
    ["", "error empty value"],
    ["   ", "error empty value"],
    ["=", "bytes "],
    ["===", "error not base64 or base64url"],
    ["QQ", "bytes 41"],
    ["QQ==", "bytes 41"],
    ["QQ=", "bytes 41"],
    ["QQ===", "error not base64 or base64url"],
    ["Q", "error truncated base64"],
    ["QUJD", "bytes 414243"],
    [" QUJD\n", "bytes 414243"],
    ["-_8", "bytes fbff"],
    ["+/8", "bytes fbff"],
    ["+_8", "error not base64 or base64url"],
    ["QU=JD", "error not base64 or base64url"],
    ["QUJD%", "error not base64 or base64url"],
    ["QUJDé", "error not base64 or base64url"],
    ["QU JD", "error not base64 or base64url"],
  ])("%j → %s", (text, expected) => {
    expect(outcome(decodeBase64, text)).toBe(expected);
    expect(outcome(regexDecode, text)).toBe(expected);
  });

  it("property: agrees with the regex decoder on strings over both alphabets, padding, spaces and strays", () => {
    const chars = fc.constantFrom(..."AZaz09+/-_= \n%é\u0100".split(""), "Q", "g");
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }), (parts) => {
        const text = parts.join("");
        expect(outcome(decodeBase64, text)).toBe(outcome(regexDecode, text));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.boolean(),
        fc.boolean(),
        (bytes, url, unpad) => {
          let text = Buffer.from(bytes).toString(url ? "base64url" : "base64");
          if (!url && unpad) text = text.replace(/=+$/, "");
          expect(new Uint8Array(decodeBase64(text))).toEqual(bytes);
          expect(outcome(decodeBase64, text)).toBe(outcome(regexDecode, text));
        },
      ),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(outcome(decodeBase64, text)).toBe(outcome(regexDecode, text));
      }),
    );
  });

  it("property: where Node's Buffer is absent, the Web decoder gives the same bytes for every well-formed text", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), fc.boolean(), fc.boolean(), (bytes, url, unpad) => {
        let text = Buffer.from(bytes).toString(url ? "base64url" : "base64");
        if (unpad) text = text.replace(/=+$/, "");
        expect(webBytesOfBase64(text)).toEqual(bytes);
        expect(new Uint8Array(bytesOfBase64(text))).toEqual(bytes);
      }),
      { numRuns: 2000 },
    );
  });
});
