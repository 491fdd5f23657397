import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DELEGATION_DEFAULTS,
  checkDelegationChain,
  type DelegationVerdict,
} from "../../../src/protocol/cbor/checkDelegationChain.js";
import { encodeClaim, type QuantifiedClaim } from "../../../src/protocol/cbor/Claim.js";
import { CborTag } from "../../../src/protocol/cbor/CborValue.js";
import {
  formatScope,
  parseScope,
  scopeCovers,
  type DelegationScope,
} from "../../../src/protocol/cbor/DelegationScope.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import { issueGrant, type GrantTerms } from "../../../src/protocol/cbor/issueGrant.js";
import type { PaymentRequest } from "../../../src/protocol/cbor/PaymentRequest.js";
import { encodeSignedClaim, signClaim } from "../../../src/protocol/cbor/SignedClaim.js";
import { createSigningKey, type SigningKey } from "../../../src/protocol/cbor/signatures.js";

const NOW_MS = Date.UTC(2026, 0, 10, 12, 0, 0);
const NOW = NOW_MS / 1000;
const LIMITS = { ...DELEGATION_DEFAULTS, skewSeconds: 30, nowMs: NOW_MS };
const MERCHANT = "merchant:acme";
const SERVICE = "GET /api/apy";

const request: PaymentRequest = {
  currency: "USDC",
  amount: 1_000n,
  merchantPseudonym: MERCHANT,
  serviceId: SERVICE,
  deadline: new Date(NOW_MS + 300_000),
  revelationMaskRef: "mask:v0.3:open-fields",
  acceptsHumanityGate: false,
  claimSchemaRef: "schema:v0.3:payment-intent",
};

/** A fixed pool of keys (ML-DSA-65 key generation is slow): chains draw distinct ones from it. */
const seed = (n: number) => new Uint8Array(32).fill(n + 1);
const keys: SigningKey[] = [
  ...Array.from({ length: 7 }, (_, n) => createSigningKey("ed25519", seed(n))),
  createSigningKey("ml-dsa-65", seed(100)),
];

function intentOf(agent: SigningKey, overrides: Partial<QuantifiedClaim> = {}): QuantifiedClaim {
  return {
    subject: agent.publicKey,
    predicate: "pays",
    object: MERCHANT,
    quantity: { currency: "USDC", amount: 1_000n },
    time: NOW,
    context: new Uint8Array(32),
    ...overrides,
  };
}

type Terms = Omit<GrantTerms, "delegate">;
const generous: Terms = {
  scope: { kind: "any" },
  cap: { currency: "USDC", amount: 10_000n },
  validUntil: NOW + 3600,
};

/** A chain through `path` (root first, agent last), link i with `terms[i]` (default generous). */
function chainThrough(path: SigningKey[], terms: Array<Partial<Terms>> = []): Uint8Array[] {
  return path
    .slice(1)
    .map((delegate, i) =>
      issueGrant(path[i] as SigningKey, { ...generous, ...terms[i], delegate: delegate.publicKey }),
    );
}

function refusalOf(verdict: DelegationVerdict) {
  if (verdict.ok) throw new Error("expected a refusal");
  return verdict.refusal;
}

describe("delegation scopes", () => {
  it("spell one way and read back", () => {
    const cases: Array<[DelegationScope, string]> = [
      [{ kind: "any" }, "*"],
      [{ kind: "merchant", merchant: "merchant:acme" }, "merchant:acme"],
      [
        { kind: "service", merchant: "merchant:acme", service: "GET /api/apy" },
        "merchant:acme#GET%20%2Fapi%2Fapy",
      ],
      [{ kind: "merchant", merchant: "*" }, "%2A"],
      [{ kind: "merchant", merchant: "a#b" }, "a%23b"],
      [{ kind: "merchant", merchant: "é%" }, "%C3%A9%25"],
    ];
    for (const [scope, text] of cases) {
      expect(formatScope(scope)).toBe(text);
      expect(parseScope(text)).toEqual(scope);
    }
  });

  it.each([
    ["empty", ""],
    ["empty merchant", "#svc"],
    ["empty service", "m#"],
    ["two separators", "m#s#t"],
    ["raw space", "merchant acme"],
    ["raw star inside", "m*"],
    ["lower-case hex", "a%2ab"],
    ["needless escape", "%61"],
    ["truncated escape", "a%2"],
    ["invalid UTF-8", "%C3"],
    ["raw slash", "m#GET /x"],
    ["raw percent", "100%"],
  ])("refuse a non-canonical scope: %s", (_name, text) => {
    expect(parseScope(text)).toBeUndefined();
  });

  it("property: any names round-trip, and only the canonical spelling parses", () => {
    const name = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 });
    const scope: fc.Arbitrary<DelegationScope> = fc.oneof(
      fc.constant({ kind: "any" as const }),
      name.map((merchant) => ({ kind: "merchant" as const, merchant })),
      fc.tuple(name, name).map(([merchant, service]) => ({ kind: "service" as const, merchant, service })),
    );
    fc.assert(
      fc.property(scope, (value) => {
        expect(parseScope(formatScope(value))).toEqual(value);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (text) => {
        const parsed = parseScope(text);
        if (parsed !== undefined) expect(formatScope(parsed)).toBe(text);
      }),
    );
  });

  it("cover what they say", () => {
    expect(scopeCovers({ kind: "any" }, "m", "s")).toBe(true);
    expect(scopeCovers({ kind: "merchant", merchant: "m" }, "m", "s")).toBe(true);
    expect(scopeCovers({ kind: "merchant", merchant: "m" }, "n", "s")).toBe(false);
    expect(scopeCovers({ kind: "service", merchant: "m", service: "s" }, "m", "s")).toBe(true);
    expect(scopeCovers({ kind: "service", merchant: "m", service: "s" }, "m", "t")).toBe(false);
    expect(scopeCovers({ kind: "service", merchant: "m", service: "s" }, "n", "s")).toBe(false);
  });
});

describe("checkDelegationChain", () => {
  const [root, middle, agent, stranger] = keys as [SigningKey, SigningKey, SigningKey, SigningKey];

  it("accepts root → middle → agent and names the root and each grant's id, cap and expiry", () => {
    const chain = chainThrough([root, middle, agent], [{ cap: { currency: "USDC", amount: 5_000n } }]);
    const verdict = checkDelegationChain(chain, request, intentOf(agent), LIMITS);
    if (!verdict.ok) throw new Error(verdict.refusal.reason);
    expect(verdict.root).toEqual(root.publicKey);
    expect(verdict.grants.map((grant) => grant.cap.amount)).toEqual([5_000n, 10_000n]);
    expect(verdict.grants.map((grant) => grant.validUntil)).toEqual([NOW + 3600, NOW + 3600]);
    expect(verdict.grants.every((grant) => /^[0-9a-f]{64}$/.test(grant.id))).toBe(true);
    expect(new Set(verdict.grants.map((grant) => grant.id)).size).toBe(2);
  });

  it("accepts an ML-DSA-65 delegate and a grant scoped to exactly this service", () => {
    const mlDsa = keys[7] as SigningKey;
    const chain = chainThrough(
      [root, mlDsa, agent],
      [
        { scope: { kind: "service", merchant: MERCHANT, service: SERVICE } },
        { scope: { kind: "merchant", merchant: MERCHANT } },
      ],
    );
    expect(checkDelegationChain(chain, request, intentOf(agent), LIMITS).ok).toBe(true);
  });

  it("refuses each fault with its own code", () => {
    const notMayPay = encodeSignedClaim(
      signClaim(root, {
        subject: agent.publicKey,
        predicate: "pays",
        object: "*",
        quantity: { currency: "USDC", amount: 10_000n },
        time: NOW + 60,
        context: new Uint8Array(32),
      }),
    );
    const badScope = encodeSignedClaim(
      signClaim(root, {
        subject: agent.publicKey,
        predicate: "may_pay",
        object: "merchant acme",
        quantity: { currency: "USDC", amount: 10_000n },
        time: NOW + 60,
        context: new Uint8Array(32),
      }),
    );
    const [good] = chainThrough([root, agent]) as [Uint8Array];
    const forged = encodeCanonical(
      new Map([
        [
          "claim",
          encodeClaim({
            subject: agent.publicKey,
            predicate: "may_pay",
            object: "*",
            quantity: { currency: "USDC", amount: 10n ** 12n },
            time: NOW + 60,
            context: new Uint8Array(32),
          }),
        ],
        ["signature", new Uint8Array(64)],
        ["signer", root.publicKey],
      ]),
    );
    const cases: Array<[string, Uint8Array[], Record<string, unknown>]> = [
      ["empty chain", [], { code: "delegation_invalid", problem: "malformed" }],
      ["not CBOR", [new Uint8Array([0xff])], { code: "delegation_invalid", problem: "malformed", link: 0 }],
      ["a CBOR number", [encodeCanonical(7)], { code: "delegation_invalid", problem: "malformed" }],
      [
        "a map with a tag",
        [encodeCanonical(new Map([["claim", new CborTag(1, 1)]]))],
        { code: "delegation_invalid", problem: "malformed" },
      ],
      ["not a may_pay claim", [notMayPay], { code: "delegation_invalid", problem: "malformed" }],
      ["an object that is no scope", [badScope], { code: "delegation_invalid", problem: "malformed" }],
      ["a forged signature", [forged], { code: "delegation_invalid", problem: "bad_signature", link: 0 }],
      ["five grants", chainThrough(keys.slice(0, 6)), { code: "delegation_invalid", problem: "too_long" }],
      [
        "too many bytes",
        [good, ...chainThrough([agent, keys[7] as SigningKey, stranger])],
        { code: "delegation_invalid", problem: "too_long" },
      ],
      [
        "a broken link",
        [...chainThrough([root, middle]), ...chainThrough([stranger, agent])],
        { code: "delegation_invalid", problem: "broken_link", link: 1 },
      ],
      [
        "a cycle",
        chainThrough([root, middle, root, agent]),
        { code: "delegation_invalid", problem: "cycle" },
      ],
      ["a self-grant", chainThrough([agent, agent]), { code: "delegation_invalid", problem: "cycle" }],
      [
        "the wrong last delegate",
        chainThrough([root, middle]),
        { code: "delegation_invalid", problem: "wrong_subject", link: 0 },
      ],
      [
        "expired",
        chainThrough([root, middle, agent], [{}, { validUntil: NOW - 31 }]),
        { code: "delegation_expired", link: 1 },
      ],
      [
        "another merchant",
        chainThrough([root, agent], [{ scope: { kind: "merchant", merchant: "merchant:other" } }]),
        { code: "delegation_out_of_scope", link: 0 },
      ],
      [
        "another service",
        chainThrough([root, agent], [{ scope: { kind: "service", merchant: MERCHANT, service: "GET /x" } }]),
        { code: "delegation_out_of_scope", link: 0 },
      ],
      [
        "a cap in STRK",
        chainThrough([root, agent], [{ cap: { currency: "STRK", amount: 10n ** 18n } }]),
        { code: "delegation_cap_exceeded", link: 0 },
      ],
      [
        "a cap below the price",
        chainThrough([root, middle, agent], [{}, { cap: { currency: "USDC", amount: 999n } }]),
        { code: "delegation_cap_exceeded", link: 1 },
      ],
    ];
    for (const [name, chain, expected] of cases) {
      const limits = name === "too many bytes" ? { ...LIMITS, maxChainBytes: 4_000 } : LIMITS;
      expect(refusalOf(checkDelegationChain(chain, request, intentOf(agent), limits)), name).toMatchObject(
        expected,
      );
    }
  });

  it("takes a grant as valid until its expiry plus the skew, and a cap equal to the price", () => {
    const chain = chainThrough(
      [root, agent],
      [{ validUntil: NOW - 30, cap: { currency: "USDC", amount: 1_000n } }],
    );
    expect(checkDelegationChain(chain, request, intentOf(agent), LIMITS).ok).toBe(true);
  });

  describe("property", () => {
    const ed25519 = keys.slice(0, 7);
    /** A random valid chain: 1–4 distinct keys after a root, random scopes covering the request, caps ≥ the price. */
    const validChain = fc
      .shuffledSubarray(ed25519, { minLength: 2, maxLength: 5 })
      .chain((path) =>
        fc.record({
          path: fc.constant(path),
          terms: fc.array(
            fc.record({
              scope: fc.constantFrom<DelegationScope>(
                { kind: "any" },
                { kind: "merchant", merchant: MERCHANT },
                { kind: "service", merchant: MERCHANT, service: SERVICE },
              ),
              cap: fc
                .bigInt({ min: 1_000n, max: 2n ** 64n - 1n })
                .map((amount) => ({ currency: "USDC" as const, amount })),
              validUntil: fc.integer({ min: NOW - 30, max: NOW + 10 ** 7 }),
            }),
            { minLength: path.length - 1, maxLength: path.length - 1 },
          ),
        }),
      )
      .map(({ path, terms }) => ({ path, terms, chain: chainThrough(path, terms) }));

    it("random valid chains pass, with the first key as root", () => {
      fc.assert(
        fc.property(validChain, ({ path, chain }) => {
          const verdict = checkDelegationChain(chain, request, intentOf(path.at(-1) as SigningKey), LIMITS);
          expect(
            verdict.ok && Buffer.from(verdict.root).equals(Buffer.from((path[0] as SigningKey).publicKey)),
          ).toBe(true);
        }),
        { numRuns: 60 },
      );
    });

    it("any mutated byte of any grant is delegation_invalid (malformed or bad_signature)", () => {
      const mutated = validChain.chain(({ path, chain }) =>
        fc
          .nat({ max: chain.length - 1 })
          .chain((link) =>
            fc.record({
              link: fc.constant(link),
              at: fc.nat({ max: (chain[link] as Uint8Array).length - 1 }),
              xor: fc.integer({ min: 1, max: 255 }),
            }),
          )
          .map(({ link, at, xor }) => {
            const copy = chain.map((grant) => new Uint8Array(grant));
            (copy[link] as Uint8Array)[at] = ((copy[link] as Uint8Array)[at] as number) ^ xor;
            return { path, chain: copy };
          }),
      );
      fc.assert(
        fc.property(mutated, ({ path, chain }) => {
          const refusal = refusalOf(
            checkDelegationChain(chain, request, intentOf(path.at(-1) as SigningKey), LIMITS),
          );
          expect(refusal.code).toBe("delegation_invalid");
          // Signatures are checked before links: a changed claim, signer or signature never verifies.
          expect(["malformed", "bad_signature"]).toContain((refusal as { problem: string }).problem);
        }),
        { numRuns: 200 },
      );
    });

    it("any reordering of the links is a broken link", () => {
      const reordered = validChain
        .filter(({ chain }) => chain.length >= 2)
        .chain(({ path, chain }) =>
          fc
            .shuffledSubarray(chain, { minLength: chain.length, maxLength: chain.length })
            .filter((order) => order.some((grant, i) => grant !== chain[i]))
            .map((order) => ({ path, chain: order })),
        );
      fc.assert(
        fc.property(reordered, ({ path, chain }) => {
          expect(
            refusalOf(checkDelegationChain(chain, request, intentOf(path.at(-1) as SigningKey), LIMITS)),
          ).toMatchObject({
            code: "delegation_invalid",
            problem: "broken_link",
          });
        }),
        { numRuns: 60 },
      );
    });

    it("one expired or over-cap link fails with that code, naming the link", () => {
      const faulty = validChain.chain(({ path, terms }) =>
        fc.record({
          path: fc.constant(path),
          terms: fc.constant(terms),
          link: fc.nat({ max: terms.length - 1 }),
          fault: fc.constantFrom("expired" as const, "over_cap" as const, "currency" as const),
        }),
      );
      fc.assert(
        fc.property(faulty, ({ path, terms, link, fault }) => {
          const broken = terms.map((term, i) =>
            i !== link
              ? term
              : fault === "expired"
                ? { ...term, validUntil: NOW - 31 }
                : fault === "over_cap"
                  ? { ...term, cap: { currency: "USDC" as const, amount: 999n } }
                  : { ...term, cap: { currency: "strkBTC" as const, amount: term.cap.amount } },
          );
          const chain = chainThrough(path, broken);
          const refusal = refusalOf(
            checkDelegationChain(chain, request, intentOf(path.at(-1) as SigningKey), LIMITS),
          );
          expect(refusal).toMatchObject({
            code: fault === "expired" ? "delegation_expired" : "delegation_cap_exceeded",
            link,
          });
        }),
        { numRuns: 60 },
      );
    });
  });
});
