import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  MAX_PASS_TOKEN_CHARS,
  base64Url,
  encodePassBody,
  joinPassToken,
  parsePassToken,
  scopeTag,
  type PassClaims,
} from "../../src/paywall/passes/passToken.js";
import { ed25519PassKey, hmacPassKey } from "../../src/paywall/passes/PassKey.js";
import { utf8Bytes } from "../../src/common/bytes.js";

const key = hmacPassKey("a-pass-secret-of-at-least-32-characters");
const CLAIMS: PassClaims = {
  alg: 1,
  id: "00112233445566778899aabbccddeeff",
  expiresAtSeconds: 1_900_000_000,
  requests: 10,
  scope: scopeTag("GET /reports/*"),
  payer: "0x00000000000000000000000000000000000000aa",
};

function sign(claims: PassClaims, signer = key): string {
  const signed = encodePassBody(claims);
  return joinPassToken(signed, signer.sign(utf8Bytes(signed)));
}

/** A body with bytes changed, re-encoded and signed, so only the body's own rules can refuse it. */
function bodyWith(change: (body: Uint8Array) => Uint8Array, sigBytes = 32): string {
  const text = encodePassBody(CLAIMS).slice(4);
  const bytes = Uint8Array.from(Buffer.from(text, "base64url"));
  return `xp1.${base64Url(change(bytes))}.${base64Url(new Uint8Array(sigBytes))}`;
}

const GOOD = sign(CLAIMS);
const [, goodBody = "", goodSig = ""] = GOOD.split(".");

describe("parsePassToken", () => {
  it("reads back what was encoded, and the signature checks", () => {
    const parsed = parsePassToken(GOOD);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.token.claims).toEqual(CLAIMS);
    expect(key.verify(parsed.token.signed, parsed.token.signature)).toBe(true);
    expect(GOOD.length).toBeLessThan(200);
  });

  it("Ed25519 tokens check with the key's public half; HMAC's key refuses them", () => {
    const ed = ed25519PassKey("11".repeat(32));
    const token = sign({ ...CLAIMS, alg: 2 }, ed);
    const parsed = parsePassToken(token);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(ed.verify(parsed.token.signed, parsed.token.signature)).toBe(true);
    expect(key.verify(parsed.token.signed, parsed.token.signature)).toBe(false);
  });

  // Hostile corpus: each entry is refused for the one reason named.
  const corpus: Array<[string, string, string]> = [
    ["empty", "", "prefix"],
    ["another prefix", GOOD.replace(/^xp1\./, "xp2."), "prefix"],
    ["upper-case prefix", GOOD.replace(/^xp1\./, "XP1."), "prefix"],
    ["JWT-looking", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "prefix"],
    ["over the cap", `xp1.${"A".repeat(MAX_PASS_TOKEN_CHARS)}.AA`, "too_long"],
    ["no signature", `xp1.${goodBody}`, "shape"],
    ["a third part", `${GOOD}.AA`, "shape"],
    ["empty signature", `xp1.${goodBody}.`, "base64"],
    ["empty body", `xp1..${goodSig}`, "base64"],
    ["standard base64 +", `xp1.${goodBody.slice(0, -1)}+.${goodSig}`, "base64"],
    ["padding", `xp1.${goodBody}=.${goodSig}`, "base64"],
    ["space inside", `xp1.${goodBody.slice(0, 5)} ${goodBody.slice(6)}.${goodSig}`, "base64"],
    ["non-ASCII", `xp1.${goodBody.slice(0, -1)}é.${goodSig}`, "base64"],
    [
      "length 1 mod 4",
      `xp1.${goodBody}${"A".repeat((((1 - goodBody.length) % 4) + 4) % 4)}.${goodSig}`,
      "base64",
    ],
    [
      "non-canonical trailing bits",
      `xp1.${goodBody}.${goodSig.slice(0, -1)}${nextDigit(goodSig.at(-1) ?? "A")}`,
      "base64",
    ],
    ["body too short", `xp1.${base64Url(new Uint8Array(20))}.${goodSig}`, "length"],
    ["unknown algorithm 0", bodyWith((b) => ((b[0] = 0), b)), "algorithm"],
    ["unknown algorithm 3", bodyWith((b) => ((b[0] = 3), b)), "algorithm"],
    ["payer length 0", bodyWith((b) => ((b[33] = 0), b)), "length"],
    ["payer length past the body", bodyWith((b) => ((b[33] = 200), b)), "length"],
    ["payer length short of the body", bodyWith((b) => ((b[33] = 10), b)), "length"],
    ["trailing byte", bodyWith((b) => Uint8Array.from([...b, 0x41])), "length"],
    ["payer with a space", bodyWith((b) => ((b[40] = 0x20), b)), "payer"],
    ["payer with NUL", bodyWith((b) => ((b[40] = 0), b)), "payer"],
    ["payer with DEL", bodyWith((b) => ((b[40] = 0x7f), b)), "payer"],
    ["payer with a high byte", bodyWith((b) => ((b[40] = 0xc3), b)), "payer"],
    ["HMAC with a 64-byte signature", bodyWith((b) => b, 64), "signature_length"],
    ["Ed25519 with a 32-byte signature", bodyWith((b) => ((b[0] = 2), b), 32), "signature_length"],
    ["truncated signature", `xp1.${goodBody}.${goodSig.slice(0, 20)}`, "signature_length"],
  ];
  it.each(corpus)("refuses %s", (_name, token, problem) => {
    expect(parsePassToken(token)).toEqual({ ok: false, problem });
  });

  it("a changed body or signature never checks", () => {
    const flipped = [
      `xp1.${goodBody.slice(0, 10)}${nextDigit(goodBody[10] ?? "A")}${goodBody.slice(11)}.${goodSig}`,
      `xp1.${goodBody}.${nextDigit(goodSig[0] ?? "A")}${goodSig.slice(1)}`,
    ];
    for (const token of flipped) {
      const parsed = parsePassToken(token);
      if (parsed.ok) expect(key.verify(parsed.token.signed, parsed.token.signature)).toBe(false);
    }
  });
});

describe("parsePassToken (generated)", () => {
  const claims = fc.record({
    alg: fc.constant(1 as const),
    id: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString("hex")),
    expiresAtSeconds: fc.nat({ max: 0xffffffff }),
    requests: fc.nat({ max: 0xffffffff }),
    scope: fc.string({ minLength: 1, maxLength: 40 }).map(scopeTag),
    payer: fc.stringMatching(/^[\x21-\x7e]{1,100}$/),
  });

  it("round-trips every valid claim set, and its signature checks", () => {
    fc.assert(
      fc.property(claims, (c) => {
        const token = sign(c);
        const parsed = parsePassToken(token);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        expect(parsed.token.claims).toEqual(c);
        expect(key.verify(parsed.token.signed, parsed.token.signature)).toBe(true);
      }),
    );
  });

  it("never throws on any string, and what it accepts is within the cap", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 500 }),
          fc.string({ maxLength: 300 }).map((s) => `xp1.${s}`),
        ),
        (text) => {
          const parsed = parsePassToken(text);
          if (parsed.ok) expect(text.length).toBeLessThanOrEqual(MAX_PASS_TOKEN_CHARS);
        },
      ),
    );
  });

  it("a token changed in one character is refused or fails its signature", () => {
    fc.assert(
      fc.property(claims, fc.nat(), fc.constantFrom(..."AZaz09-_.+/=x "), (c, at, char) => {
        const token = sign(c);
        const i = 4 + (at % (token.length - 4));
        if (token[i] === char) return;
        const changed = token.slice(0, i) + char + token.slice(i + 1);
        const parsed = parsePassToken(changed);
        if (parsed.ok) expect(key.verify(parsed.token.signed, parsed.token.signature)).toBe(false);
      }),
    );
  });
});

function nextDigit(c: string): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  return alphabet[(alphabet.indexOf(c) + 1) % 64] as string;
}
