import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkHumanityClaim,
  issueHumanityClaim,
  type HumanityClaimCheck,
} from "../../../src/protocol/cbor/checkHumanityClaim.js";
import { decodeClaim, encodeClaim, type Claim } from "../../../src/protocol/cbor/Claim.js";
import { CborTag } from "../../../src/protocol/cbor/CborValue.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import { createSigningKey } from "../../../src/protocol/cbor/signatures.js";
import { decodeSignedClaim, encodeSignedClaim, signClaim } from "../../../src/protocol/cbor/SignedClaim.js";

const issuer = createSigningKey("ed25519", new Uint8Array(32).fill(1));
const pqIssuer = createSigningKey("ml-dsa-65", new Uint8Array(32).fill(2));
const stranger = createSigningKey("ed25519", new Uint8Array(32).fill(3));
const payer = createSigningKey("ed25519", new Uint8Array(32).fill(4));
const otherPayer = createSigningKey("ed25519", new Uint8Array(32).fill(5));
const NOW = 1_900_000_000;
const LABEL = "issuer:test";

const valid = issueHumanityClaim(issuer, {
  subject: payer.publicKey,
  label: LABEL,
  validUntil: NOW + 3600,
  evidence: "case-1",
});

function check(humanityClaim: Uint8Array | undefined, overrides: Partial<HumanityClaimCheck> = {}) {
  return checkHumanityClaim({
    humanityClaim,
    subject: payer.publicKey,
    trustedIssuers: [issuer.publicKey, pqIssuer.publicKey],
    nowSeconds: NOW,
    skewSeconds: 30,
    ...overrides,
  });
}

/** A claim about `payer` with any part overridden, signed by `key`. */
function claimBy(key = issuer, overrides: Partial<Claim> = {}): Uint8Array {
  return encodeSignedClaim(
    signClaim(key, {
      subject: payer.publicKey,
      predicate: "is_human",
      object: LABEL,
      quantity: null,
      time: NOW + 60,
      context: new Uint8Array(32),
      ...overrides,
    }),
  );
}

describe("checkHumanityClaim", () => {
  it("passes a claim from a trusted Ed25519 or ML-DSA-65 issuer about the intent's subject, still valid", () => {
    expect(check(valid)).toBeUndefined();
    expect(check(claimBy(pqIssuer))).toBeUndefined();
    // Within the skew after its end, still accepted; beyond it, expired.
    expect(check(claimBy(issuer, { time: NOW - 30 }))).toBeUndefined();
    expect(check(claimBy(issuer, { time: NOW - 31 }))?.code).toBe("humanity_claim_expired");
  });

  it("issueHumanityClaim writes the v0.3 layout: [subject, is_human, label, null, valid until, SHA-256(evidence)]", () => {
    const envelope = decodeSignedClaim(valid);
    expect(envelope.signer).toEqual(issuer.publicKey);
    const claim = decodeClaim(envelope.claim);
    expect(claim).toMatchObject({ predicate: "is_human", object: LABEL, quantity: null, time: NOW + 3600 });
    expect(claim.subject).toEqual(payer.publicKey);
    expect(Buffer.from(claim.context)).toEqual(createHash("sha256").update("case-1").digest());
    expect(() =>
      issueHumanityClaim(issuer, { subject: payer.publicKey, label: "", validUntil: NOW }),
    ).toThrow(/label/);
  });

  const cases: Array<[string, Uint8Array | undefined, Partial<HumanityClaimCheck>, string, unknown?]> = [
    ["absent", undefined, {}, "humanity_claim_required"],
    ["empty bytes", new Uint8Array(), {}, "humanity_claim_invalid", "malformed"],
    ["not CBOR", new Uint8Array([0xff, 0x00]), {}, "humanity_claim_invalid", "malformed"],
    ["a CBOR text, not an envelope", encodeCanonical("is_human"), {}, "humanity_claim_invalid", "malformed"],
    [
      "an envelope with an extra key",
      encodeCanonical(
        new Map<string, Uint8Array>([
          ["claim", decodeSignedClaim(valid).claim],
          ["extra", new Uint8Array(1)],
          ["signature", decodeSignedClaim(valid).signature],
          ["signer", issuer.publicKey],
        ]),
      ),
      {},
      "humanity_claim_invalid",
      "malformed",
    ],
    [
      "a non-canonical envelope (trailing byte)",
      new Uint8Array([...valid, 0]),
      {},
      "humanity_claim_invalid",
      "malformed",
    ],
    [
      "the claim is not a six-part claim",
      encodeSignedClaim({
        claim: encodeCanonical([1, 2]),
        signature: issuer.sign(encodeCanonical([1, 2])),
        signer: issuer.publicKey,
      }),
      {},
      "humanity_claim_invalid",
      "malformed",
    ],
    [
      "an is_human claim with a quantity",
      (() => {
        const bad = encodeCanonical([
          payer.publicKey,
          "is_human",
          LABEL,
          ["USDC", 1n],
          new CborTag(1, NOW + 60),
          new Uint8Array(32),
        ]);
        return encodeSignedClaim({ claim: bad, signature: issuer.sign(bad), signer: issuer.publicKey });
      })(),
      {},
      "humanity_claim_invalid",
      "malformed",
    ],
    ["an empty issuer label", claimBy(issuer, { object: "" }), {}, "humanity_claim_invalid", "malformed"],
    [
      "another predicate (a receipt)",
      claimBy(issuer, { predicate: "was_paid", quantity: { currency: "USDC", amount: 1n } }),
      {},
      "humanity_claim_invalid",
      "wrong_predicate",
    ],
    [
      "signature by another key under a trusted signer",
      (() => {
        const envelope = decodeSignedClaim(claimBy(issuer));
        return encodeSignedClaim({ ...envelope, signature: stranger.sign(envelope.claim) });
      })(),
      {},
      "humanity_claim_invalid",
      "bad_signature",
    ],
    [
      "claim bytes changed after signing",
      (() => {
        const envelope = decodeSignedClaim(claimBy(issuer));
        const later = encodeClaim({ ...decodeClaim(envelope.claim), time: NOW + 999_999 });
        return encodeSignedClaim({ ...envelope, claim: later });
      })(),
      {},
      "humanity_claim_invalid",
      "bad_signature",
    ],
    ["an issuer not trusted", claimBy(stranger), {}, "humanity_issuer_untrusted"],
    ["no issuer trusted at all", valid, { trustedIssuers: [] }, "humanity_issuer_untrusted"],
    ["about another key", valid, { subject: otherPayer.publicKey }, "humanity_claim_mismatch"],
    ["about an ML-DSA-65 payer", valid, { subject: pqIssuer.publicKey }, "humanity_claim_mismatch"],
    ["expired", claimBy(issuer, { time: NOW - 3600 }), {}, "humanity_claim_expired"],
  ];
  it.each(cases)("refuses %s", (_name, bytes, overrides, code, problem) => {
    const refusal = check(bytes, overrides);
    expect(refusal?.code).toBe(code);
    expect(refusal?.message.length).toBeGreaterThan(10);
    if (problem !== undefined) expect(refusal?.details.problem).toBe(problem);
  });

  it("property: every valid claim passes", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(issuer, pqIssuer),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: NOW - 30, max: 2 ** 40 }),
        fc.oneof(fc.string(), fc.uint8Array({ maxLength: 64 })),
        (key, label, validUntil, evidence) => {
          const bytes = issueHumanityClaim(key, { subject: payer.publicKey, label, validUntil, evidence });
          expect(check(bytes)).toBeUndefined();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("property: a valid claim with any byte changed, cut or extended never passes", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => {
            const copy = new Uint8Array(valid);
            copy[at] = (copy[at] as number) ^ xor;
            return copy;
          }),
          fc.nat({ max: valid.length - 1 }).map((length) => valid.slice(0, length)),
          fc.uint8Array({ minLength: 1, maxLength: 8 }).map((tail) => new Uint8Array([...valid, ...tail])),
        ),
        (bytes) => {
          const refusal = check(bytes);
          expect(refusal).toBeDefined();
          expect(refusal?.code).not.toBe("humanity_claim_required");
        },
      ),
      { numRuns: 400 },
    );
  });

  it("property: random bytes never pass", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(check(bytes)?.code).toMatch(/^humanity_(claim_invalid|issuer_untrusted)$/);
      }),
    );
  });
});
