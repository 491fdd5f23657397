import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { aggregateReceipts, verifyAggregate } from "../../../src/protocol/cbor/aggregateReceipts.js";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import { CborTag, type CborValue } from "../../../src/protocol/cbor/CborValue.js";
import {
  CLAIM_PARTS,
  claimPartValues,
  decodeClaim,
  encodeClaim,
  type Claim,
  type ClaimPart,
} from "../../../src/protocol/cbor/Claim.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import {
  decodeCborRefundRequest,
  decodeCborRevocationList,
  encodeCborRefundRequest,
  encodeCborRevocationList,
} from "../../../src/protocol/cbor/facilitatorMessages.js";
import { CURRENCIES } from "../../../src/protocol/cbor/profile.js";
import {
  decodeReceiptAggregate,
  encodeReceiptAggregate,
  type ReceiptAggregate,
} from "../../../src/protocol/cbor/ReceiptAggregate.js";
import {
  decodeReceiptOpenings,
  decodeRestrictedReceipt,
  encodeReceiptOpenings,
  encodeRestrictedReceipt,
  isRevealedPart,
  type RestrictedReceipt,
} from "../../../src/protocol/cbor/RestrictedReceipt.js";
import { restrictReceipt } from "../../../src/protocol/cbor/restrictReceipt.js";
import { isRevoked, revokeReceipt } from "../../../src/protocol/cbor/revokeReceipt.js";
import {
  decodeSettlementReceipt,
  encodeSettlementReceipt,
  receiptDigest,
  signReceipt,
  type SettlementReceipt,
} from "../../../src/protocol/cbor/SettlementReceipt.js";
import { encodeSignedClaim, signClaim } from "../../../src/protocol/cbor/SignedClaim.js";
import { createSigningKey, payerIdOf } from "../../../src/protocol/cbor/signatures.js";
import { verifyReceipt } from "../../../src/protocol/cbor/verifyReceipt.js";
import {
  openRestrictedReceipt,
  verifyRestrictedReceipt,
} from "../../../src/protocol/cbor/verifyRestrictedReceipt.js";

const facilitator = createSigningKey("ed25519", new Uint8Array(32).fill(9));
const impostor = createSigningKey("ed25519", new Uint8Array(32).fill(10));
const alice = createSigningKey("ed25519", new Uint8Array(32).fill(1));
const bob = createSigningKey("ed25519", new Uint8Array(32).fill(2));

let nextContext = 0;
const paid = (over: Partial<Claim> = {}): Claim => ({
  subject: alice.publicKey,
  predicate: "was_paid",
  object: "merchant:acme",
  quantity: { currency: "USDC", amount: 1000n },
  time: 1_800_000_000,
  context: new Uint8Array(32).fill(++nextContext),
  ...over,
});

const flip = (bytes: Uint8Array, index = 0): Uint8Array => {
  const copy = new Uint8Array(bytes);
  copy[index] = (copy[index] as number) ^ 1;
  return copy;
};

/** A different but well-formed value for each claim part. */
const otherValue: Record<ClaimPart, (value: CborValue) => CborValue> = {
  subject: () => bob.publicKey,
  predicate: () => "pays",
  object: (value) => `${value as string}x`,
  quantity: () => ["USDC", 999],
  time: (value) => new CborTag(1, ((value as CborTag).value as number) + 1),
  context: (value) => flip(value as Uint8Array),
};

describe("SettlementReceipt v0.3: salted commitments", () => {
  const receipt = signReceipt(facilitator, paid());

  it("verifies, and changing any claim part, any salt, the signature or the signer breaks it", () => {
    expect(verifyReceipt(receipt, facilitator.publicKey)).toMatchObject({ valid: true });
    const values = claimPartValues(decodeClaim(receipt.claim));
    const tampered: Array<[string, SettlementReceipt]> = [
      ...CLAIM_PARTS.map((part, i): [string, SettlementReceipt] => {
        const changed = [...values];
        changed[i] = otherValue[part](values[i] as CborValue);
        return [`claim.${part}`, { ...receipt, claim: encodeCanonical(changed) }];
      }),
      ...CLAIM_PARTS.map((part, i): [string, SettlementReceipt] => [
        `salts[${i}] (${part})`,
        { ...receipt, salts: receipt.salts.map((salt, j) => (j === i ? flip(salt) : salt)) },
      ]),
      ["signature", { ...receipt, signature: flip(receipt.signature) }],
      ["signer", { ...receipt, signer: impostor.publicKey }],
    ];
    expect(tampered).toHaveLength(14);
    for (const [what, bad] of tampered) {
      expect(verifyReceipt(bad, facilitator.publicKey).valid, what).toBe(false);
      expect(verifyReceipt(encodeSettlementReceipt(bad), facilitator.publicKey).valid, what).toBe(false);
    }
  });

  it("a receipt re-signed by another key verifies only against that key", () => {
    const forged = signReceipt(impostor, paid());
    expect(verifyReceipt(forged, facilitator.publicKey)).toEqual({
      valid: false,
      reason: "signed by another key than the facilitator's",
    });
  });

  const valid = new Map<string, CborValue>([
    ["claim", receipt.claim],
    ["salts", receipt.salts],
    ["signature", receipt.signature],
    ["signer", receipt.signer],
  ]);
  const variant = (change: (map: Map<string, CborValue>) => void): Uint8Array => {
    const copy = new Map(valid);
    change(copy);
    return encodeCanonical(copy);
  };
  it.each<[string, Uint8Array, CborError["problem"]]>([
    ["no salts (the old v0.3 receipt)", variant((m) => m.delete("salts")), "missing_key"],
    ["five salts", variant((m) => m.set("salts", receipt.salts.slice(1))), "wrong_value"],
    [
      "a 15-byte salt",
      variant((m) => m.set("salts", [new Uint8Array(15), ...receipt.salts.slice(1)])),
      "wrong_value",
    ],
    ["salts as text", variant((m) => m.set("salts", ["a", "b", "c", "d", "e", "f"])), "wrong_type"],
    ["an unknown key", variant((m) => m.set("x", 1)), "unknown_key"],
    ["an array", encodeCanonical([receipt.claim]), "wrong_type"],
  ])("decodeSettlementReceipt refuses %s", (_name, input, problem) => {
    expect(() => decodeSettlementReceipt(input)).toThrow(expect.objectContaining({ problem }));
    expect(verifyReceipt(input, facilitator.publicKey).valid).toBe(false);
  });
});

describe("restrictReceipt / verifyRestrictedReceipt / openRestrictedReceipt", () => {
  const claim = paid();
  const receipt = signReceipt(facilitator, claim);
  const some: ClaimPart[] = ["subject", "object", "quantity"];
  const complement = CLAIM_PARTS.filter((part) => !some.includes(part));

  it("keeps the revealed parts, hides the others, and the facilitator's signature still holds", () => {
    const { receipt: restricted, openings } = restrictReceipt(receipt, some);
    const verdict = verifyRestrictedReceipt(encodeRestrictedReceipt(restricted), facilitator.publicKey);
    expect(verdict).toEqual({
      valid: true,
      revealed: { subject: claim.subject, object: claim.object, quantity: claim.quantity },
      digest: receiptDigest(receipt),
    });
    expect(Object.keys(openings).sort()).toEqual([...complement].sort());
    const opened = openRestrictedReceipt(
      restricted,
      decodeReceiptOpenings(encodeReceiptOpenings(openings)),
      facilitator.publicKey,
    );
    expect(opened).toEqual({ valid: true, revealed: claim, digest: receiptDigest(receipt) });
    expect(restricted.parts.filter(isRevealedPart)).toHaveLength(3);
  });

  it("hiding everything still proves a facilitator receipt; revealing everything shows the whole claim", () => {
    expect(
      verifyRestrictedReceipt(restrictReceipt(receipt, []).receipt, facilitator.publicKey),
    ).toMatchObject({
      valid: true,
      revealed: {},
    });
    expect(
      verifyRestrictedReceipt(restrictReceipt(receipt, CLAIM_PARTS).receipt, facilitator.publicKey),
    ).toEqual({
      valid: true,
      revealed: claim,
      digest: receiptDigest(receipt),
    });
  });

  // Every part in both forms: revealed in one restriction, hidden in the other.
  const cases = [some, complement].flatMap((reveal) => {
    const { receipt: restricted, openings } = restrictReceipt(receipt, reveal);
    return CLAIM_PARTS.flatMap((part, i) => {
      const at = (change: (r: RestrictedReceipt) => void): RestrictedReceipt => {
        const copy: RestrictedReceipt = { ...restricted, parts: restricted.parts.map((p) => ({ ...p })) };
        change(copy);
        return copy;
      };
      const slot = restricted.parts[i]!;
      const shown = isRevealedPart(slot);
      const rows: Array<[string, RestrictedReceipt, typeof openings]> = shown
        ? [
            [
              `revealed ${part}: value`,
              at((r) => (r.parts[i] = { ...slot, value: otherValue[part](slot.value) })),
              openings,
            ],
            [
              `revealed ${part}: salt`,
              at((r) => (r.parts[i] = { ...slot, salt: flip(slot.salt) })),
              openings,
            ],
          ]
        : [
            [
              `hidden ${part}: commitment`,
              at((r) => (r.parts[i] = { commitment: flip(slot.commitment) })),
              openings,
            ],
            [
              `opening of ${part}: value`,
              restricted,
              { ...openings, [part]: { ...openings[part]!, value: otherValue[part](openings[part]!.value) } },
            ],
            [
              `opening of ${part}: salt`,
              restricted,
              { ...openings, [part]: { ...openings[part]!, salt: flip(openings[part]!.salt) } },
            ],
          ];
      return rows;
    });
  });
  const { receipt: base, openings: baseOpenings } = restrictReceipt(receipt, some);
  cases.push(
    ["signature", { ...base, signature: flip(base.signature) }, baseOpenings],
    ["signer", { ...base, signer: impostor.publicKey }, baseOpenings],
    [
      "an opening for a revealed part",
      base,
      { ...baseOpenings, subject: { salt: receipt.salts[0]!, value: claim.subject } },
    ],
  );

  it.each(cases)("tampering with the %s breaks it", (what, restricted, openings) => {
    expect(openRestrictedReceipt(restricted, openings, facilitator.publicKey).valid).toBe(false);
    if (!what.startsWith("opening") && !what.startsWith("an opening")) {
      expect(verifyRestrictedReceipt(encodeRestrictedReceipt(restricted), facilitator.publicKey).valid).toBe(
        false,
      );
    }
  });

  it("the untampered cases verify (so the table above tests the tampering, not a broken base)", () => {
    for (const reveal of [some, complement]) {
      const { receipt: restricted, openings } = restrictReceipt(receipt, reveal);
      expect(openRestrictedReceipt(restricted, openings, facilitator.publicKey).valid).toBe(true);
    }
  });

  it("a restricted receipt of an intent signed as if a receipt is refused once its predicate shows", () => {
    const notReceipt = signReceipt(facilitator, { ...claim, predicate: "pays" });
    expect(
      verifyRestrictedReceipt(restrictReceipt(notReceipt, ["predicate"]).receipt, facilitator.publicKey),
    ).toEqual({
      valid: false,
      reason: 'the claim is not a "was_paid" receipt',
    });
  });

  it("restrictReceipt refuses an unknown part name and a malformed receipt", () => {
    expect(() => restrictReceipt(receipt, ["amount" as ClaimPart])).toThrow(CborError);
    expect(() => restrictReceipt({ ...receipt, salts: receipt.salts.slice(1) }, [])).toThrow(CborError);
  });

  const full = restrictReceipt(receipt, some).receipt;
  const wire = (parts: CborValue, more: Array<[string, CborValue]> = []): Uint8Array =>
    encodeCanonical(
      new Map<string, CborValue>([
        ["parts", parts],
        ["signature", full.signature],
        ["signer", full.signer],
        ...more,
      ]),
    );
  const wireParts = full.parts.map((p) =>
    isRevealedPart(p) ? [p.salt, p.value] : p.commitment,
  ) as CborValue[];
  const withPart = (i: number, value: CborValue) => wireParts.map((p, j) => (j === i ? value : p));
  it.each<[string, Uint8Array, CborError["problem"]]>([
    ["five parts", wire(wireParts.slice(1)), "wrong_type"],
    ["parts as a map", wire(new Map([["subject", 1]])), "wrong_type"],
    ["a 31-byte commitment", wire(withPart(3, new Uint8Array(31))), "wrong_value"],
    ["a revealed part without its salt", wire(withPart(0, [alice.publicKey])), "wrong_type"],
    ["a 17-byte salt", wire(withPart(0, [new Uint8Array(17), alice.publicKey])), "wrong_value"],
    [
      "a revealed subject of 31 bytes",
      wire(withPart(0, [new Uint8Array(16), new Uint8Array(31)])),
      "wrong_value",
    ],
    ["a revealed object that is a number", wire(withPart(2, [new Uint8Array(16), 7])), "wrong_type"],
    ["a revealed quantity in EUR", wire(withPart(3, [new Uint8Array(16), ["EUR", 1]])), "wrong_type"],
    ["a revealed time without tag 1", wire(withPart(4, [new Uint8Array(16), 5])), "wrong_type"],
    ["a revealed part as text", wire(withPart(1, "was_paid")), "wrong_type"],
    ["an unknown key", wire(wireParts, [["extra", 1]]), "unknown_key"],
    [
      "no signer",
      encodeCanonical(
        new Map<string, CborValue>([
          ["parts", wireParts],
          ["signature", full.signature],
        ]),
      ),
      "missing_key",
    ],
    ["an array", encodeCanonical(wireParts), "wrong_type"],
  ])("decodeRestrictedReceipt refuses %s", (_name, input, problem) => {
    expect(() => decodeRestrictedReceipt(input)).toThrow(
      expect.objectContaining({ name: "CborError", problem }),
    );
    expect(verifyRestrictedReceipt(input, facilitator.publicKey).valid).toBe(false);
  });
  it("the corpus' base decodes and verifies", () => {
    expect(verifyRestrictedReceipt(wire(wireParts), facilitator.publicKey).valid).toBe(true);
  });

  it.each<[string, CborValue, CborError["problem"]]>([
    ["an unknown part", new Map([["amount", [new Uint8Array(16), 1]]]), "unknown_key"],
    ["a value without salt", new Map([["object", "m"]]), "wrong_type"],
    ["a short salt", new Map([["object", [new Uint8Array(8), "m"]]]), "wrong_value"],
    ["a wrong-typed value", new Map([["time", [new Uint8Array(16), "soon"]]]), "wrong_type"],
    ["an array", [1], "wrong_type"],
  ])("decodeReceiptOpenings refuses %s", (_name, value, problem) => {
    expect(() => decodeReceiptOpenings(encodeCanonical(value))).toThrow(expect.objectContaining({ problem }));
  });

  it("never throws on garbage", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(verifyRestrictedReceipt(bytes, facilitator.publicKey).valid).toBe(false);
        expect(verifyReceipt(bytes, facilitator.publicKey).valid).toBe(false);
        expect(verifyAggregate(bytes, [], facilitator.publicKey).valid).toBe(false);
      }),
    );
  });
});

const claimArbitrary: fc.Arbitrary<Claim> = fc.record({
  subject: fc.oneof(
    fc.uint8Array({ minLength: 32, maxLength: 32 }),
    fc.uint8Array({ minLength: 1952, maxLength: 1952 }),
  ),
  predicate: fc.constant("was_paid" as const),
  object: fc.string({ unit: "grapheme", maxLength: 30 }),
  quantity: fc.record({
    currency: fc.constantFrom(...CURRENCIES),
    amount: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  }),
  time: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  context: fc.uint8Array({ minLength: 32, maxLength: 32 }),
});

describe("properties over random receipts", () => {
  it("random claim → receipt → restrict with a random reveal set → verifies, opens to the claim; any bit flip fails", () => {
    fc.assert(
      fc.property(
        claimArbitrary,
        fc.subarray([...CLAIM_PARTS]),
        fc.nat(),
        fc.nat(7),
        (claim, reveal, at, bit) => {
          const receipt = signReceipt(facilitator, claim);
          const { receipt: restricted, openings } = restrictReceipt(receipt, reveal);
          const bytes = encodeRestrictedReceipt(restricted);
          const verdict = verifyRestrictedReceipt(bytes, facilitator.publicKey);
          expect(verdict.valid).toBe(true);
          if (verdict.valid) {
            expect(Object.keys(verdict.revealed).sort()).toEqual([...reveal].sort());
            for (const part of reveal) expect(verdict.revealed[part]).toEqual(claim[part]);
          }
          expect(openRestrictedReceipt(bytes, openings, facilitator.publicKey)).toMatchObject({
            valid: true,
            revealed: claim,
          });
          const flipped = new Uint8Array(bytes);
          flipped[at % bytes.length] = (flipped[at % bytes.length] as number) ^ (1 << bit);
          expect(verifyRestrictedReceipt(flipped, facilitator.publicKey).valid).toBe(false);
          const whole = encodeSettlementReceipt(receipt);
          const flippedWhole = new Uint8Array(whole);
          flippedWhole[at % whole.length] = (flippedWhole[at % whole.length] as number) ^ (1 << bit);
          expect(verifyReceipt(flippedWhole, facilitator.publicKey).valid).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("decode(encode(x)) = x for restricted receipts, openings and aggregates", () => {
    fc.assert(
      fc.property(claimArbitrary, fc.subarray([...CLAIM_PARTS]), fc.boolean(), (claim, reveal, signed) => {
        const receipt = signReceipt(facilitator, claim);
        const { receipt: restricted, openings } = restrictReceipt(receipt, reveal);
        expect(decodeRestrictedReceipt(encodeRestrictedReceipt(restricted))).toEqual(restricted);
        expect(decodeReceiptOpenings(encodeReceiptOpenings(openings))).toEqual(openings);
        const aggregate = aggregateReceipts(
          [receipt],
          facilitator.publicKey,
          signed ? { signingKey: facilitator } : {},
        );
        expect(decodeReceiptAggregate(encodeReceiptAggregate(aggregate))).toEqual(aggregate);
      }),
      { numRuns: 40 },
    );
  });
});

describe("aggregateReceipts / verifyAggregate", () => {
  const receipts = [
    signReceipt(facilitator, paid()),
    signReceipt(facilitator, paid({ quantity: { currency: "USDC", amount: 250n } })),
    signReceipt(facilitator, paid({ subject: bob.publicKey })),
    signReceipt(facilitator, paid({ quantity: { currency: "STRK", amount: 7n } })),
    signReceipt(facilitator, paid({ object: "merchant:other" })),
  ];

  it("sums per payer × merchant × currency, lists each member once, and verifies", () => {
    const aggregate = aggregateReceipts(
      [...receipts, receipts[0]!, encodeSettlementReceipt(receipts[1]!)],
      facilitator.publicKey,
    );
    expect(aggregate.members).toHaveLength(5);
    expect(aggregate.members.map((m) => `sha256:${Buffer.from(m).toString("hex")}`).sort()).toEqual(
      receipts.map(receiptDigest).sort(),
    );
    const rows = aggregate.totals.map((t) => [
      t.payer === payerIdOf(alice.publicKey) ? "alice" : "bob",
      t.merchant,
      t.currency,
      t.amount,
      t.count,
    ]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ["alice", "merchant:acme", "USDC", 1250n, 2],
        ["alice", "merchant:acme", "STRK", 7n, 1],
        ["alice", "merchant:other", "USDC", 1000n, 1],
        ["bob", "merchant:acme", "USDC", 1000n, 1],
      ]),
    );
    expect(rows).toHaveLength(4);
    expect(verifyAggregate(encodeReceiptAggregate(aggregate), receipts, facilitator.publicKey)).toMatchObject(
      { valid: true },
    );
    // The order the receipts come in does not matter.
    expect(aggregateReceipts([...receipts].reverse(), facilitator.publicKey)).toEqual(aggregate);
  });

  it("refuses a receipt of another facilitator and a second receipt of the same intent", () => {
    expect(() => aggregateReceipts([signReceipt(impostor, paid())], facilitator.publicKey)).toThrow(
      expect.objectContaining({ at: "receipts[0]" }),
    );
    const claim = paid();
    expect(() =>
      aggregateReceipts(
        [signReceipt(facilitator, claim), signReceipt(facilitator, claim)],
        facilitator.publicKey,
      ),
    ).toThrow(expect.objectContaining({ at: "receipts[1]" }));
  });

  const signed = aggregateReceipts(receipts, facilitator.publicKey, { signingKey: facilitator });
  const change = (edit: (a: ReceiptAggregate) => ReceiptAggregate) =>
    edit({ ...signed, totals: signed.totals.map((t) => ({ ...t })) });
  it.each<[string, ReceiptAggregate]>([
    [
      "a member flipped",
      change((a) => ({ ...a, members: a.members.map((m, i) => (i === 2 ? flip(m, 31) : m)) })),
    ],
    ["a member dropped", change((a) => ({ ...a, members: a.members.slice(1) }))],
    ["a member twice", change((a) => ({ ...a, members: [a.members[0]!, ...a.members] }))],
    [
      "a total's amount",
      change((a) => ({
        ...a,
        totals: a.totals.map((t, i) => (i === 0 ? { ...t, amount: t.amount + 1n } : t)),
      })),
    ],
    [
      "a total's count",
      change((a) => ({ ...a, totals: a.totals.map((t, i) => (i === 0 ? { ...t, count: t.count + 1 } : t)) })),
    ],
    [
      "a total's payer",
      change((a) => ({
        ...a,
        totals: a.totals.map((t, i) => (i === 0 ? { ...t, payer: payerIdOf(impostor.publicKey) } : t)),
      })),
    ],
    [
      "a total's merchant",
      change((a) => ({
        ...a,
        totals: a.totals.map((t, i) => (i === 0 ? { ...t, merchant: "merchant:zzz" } : t)),
      })),
    ],
    [
      "a total's currency",
      change((a) => ({
        ...a,
        totals: a.totals.map((t, i) => (i === 0 ? { ...t, currency: "strkBTC" as const } : t)),
      })),
    ],
    ["a total dropped", change((a) => ({ ...a, totals: a.totals.slice(1) }))],
    ["the digest", change((a) => ({ ...a, digest: flip(a.digest) }))],
    ["the signature", change((a) => ({ ...a, signature: flip(a.signature!) }))],
    ["the signer", change((a) => ({ ...a, signer: impostor.publicKey }))],
    ["the signature removed", change(({ signature: _s, signer: _k, ...rest }) => rest)],
  ])("tampering with %s breaks the signed aggregate", (_what, bad) => {
    expect(
      verifyAggregate(bad, receipts, facilitator.publicKey, { signer: facilitator.publicKey }).valid,
    ).toBe(false);
  });

  it("the untampered aggregate verifies, and only with its own receipts", () => {
    expect(
      verifyAggregate(signed, receipts, facilitator.publicKey, { signer: facilitator.publicKey }).valid,
    ).toBe(true);
    expect(verifyAggregate(signed, receipts.slice(1), facilitator.publicKey).valid).toBe(false);
    expect(
      verifyAggregate(signed, [...receipts, signReceipt(facilitator, paid())], facilitator.publicKey).valid,
    ).toBe(false);
    expect(
      verifyAggregate(signed, [...receipts.slice(1), signReceipt(impostor, paid())], facilitator.publicKey)
        .valid,
    ).toBe(false);
    // An aggregate with a consistent digest but other sums: recomputed from the receipts, refused.
    const inflated = { ...signed, totals: signed.totals.map((t) => ({ ...t, amount: t.amount * 2n })) };
    const redigested = aggregateReceipts(receipts, facilitator.publicKey);
    expect(
      verifyAggregate(
        {
          ...inflated,
          digest: redigested.digest,
          signature: undefined,
          signer: undefined,
        } as ReceiptAggregate,
        receipts,
        facilitator.publicKey,
      ).valid,
    ).toBe(false);
  });

  const encoded = encodeReceiptAggregate(signed);
  const wire = (edit: (m: Map<string, CborValue>) => void): Uint8Array => {
    const map = new Map<string, CborValue>([
      ["members", signed.members],
      ["totals", signed.totals.map((t) => [t.payer, t.merchant, t.currency, t.amount, t.count])],
      ["digest", signed.digest],
      ["signature", signed.signature!],
      ["signer", signed.signer!],
    ]);
    edit(map);
    return encodeCanonical(map);
  };
  it.each<[string, Uint8Array, CborError["problem"]]>([
    ["members out of order", wire((m) => m.set("members", [...signed.members].reverse())), "wrong_value"],
    ["a member twice", wire((m) => m.set("members", [signed.members[0]!, ...signed.members])), "wrong_value"],
    ["a 31-byte member", wire((m) => m.set("members", [new Uint8Array(31)])), "wrong_value"],
    [
      "totals out of order",
      wire((m) => m.set("totals", [...(m.get("totals") as CborValue[])].reverse())),
      "wrong_value",
    ],
    ["a four-field total", wire((m) => m.set("totals", [["p", "m", "USDC", 1]])), "wrong_type"],
    ["a total with count 0", wire((m) => m.set("totals", [["p", "m", "USDC", 1, 0]])), "wrong_type"],
    ["a total in EUR", wire((m) => m.set("totals", [["p", "m", "EUR", 1, 1]])), "wrong_type"],
    ["a negative amount", wire((m) => m.set("totals", [["p", "m", "USDC", -1, 1]])), "wrong_type"],
    ["a signature without signer", wire((m) => m.delete("signer")), "missing_key"],
    ["a 16-byte digest", wire((m) => m.set("digest", new Uint8Array(16))), "wrong_value"],
    ["no digest", wire((m) => m.delete("digest")), "missing_key"],
    ["an unknown key", wire((m) => m.set("extra", 1)), "unknown_key"],
    ["an array", encodeCanonical([1, 2]), "wrong_type"],
  ])("decodeReceiptAggregate refuses %s", (_name, input, problem) => {
    expect(() => decodeReceiptAggregate(input)).toThrow(
      expect.objectContaining({ name: "CborError", problem }),
    );
    expect(verifyAggregate(input, receipts, facilitator.publicKey).valid).toBe(false);
  });
  it("the aggregate corpus' base decodes to the aggregate", () => {
    expect(decodeReceiptAggregate(wire(() => undefined))).toEqual(signed);
    expect(decodeReceiptAggregate(encoded)).toEqual(signed);
  });
});

describe("revokeReceipt / isRevoked", () => {
  const receipt = signReceipt(facilitator, paid());
  const now = 1_800_000_123_456;

  it("signs the v0.3 revocation claim: payer, revokes, receipt digest, refund, time, intent digest", () => {
    const revocation = revokeReceipt(receipt, facilitator, {
      now,
      refund: { currency: "USDC", amount: 400n },
    });
    expect(revocation.signer).toEqual(facilitator.publicKey);
    expect(decodeClaim(revocation.claim)).toEqual({
      subject: alice.publicKey,
      predicate: "revokes",
      object: receiptDigest(receipt),
      quantity: { currency: "USDC", amount: 400n },
      time: 1_800_000_123,
      context: decodeClaim(receipt.claim).context,
    });
    expect(receiptDigest(receipt)).toMatch(/^sha256:[0-9a-f]{64}$/);
    const whole = revokeReceipt(receipt, facilitator, { now });
    expect(decodeClaim(whole.claim).quantity).toEqual({ currency: "USDC", amount: 1000n });
  });

  it("isRevoked: true for the facilitator's revocation (receipt full, encoded, base64 or restricted)", () => {
    const revocation = revokeReceipt(receipt, facilitator, { now });
    const restricted = restrictReceipt(receipt, ["quantity"]).receipt;
    const inputs = [
      receipt,
      encodeSettlementReceipt(receipt),
      Buffer.from(encodeSettlementReceipt(receipt)).toString("base64"),
      restricted,
      encodeRestrictedReceipt(restricted),
    ];
    for (const input of inputs) {
      expect(isRevoked(input, [revocation], facilitator.publicKey)).toBe(true);
      expect(isRevoked(input, [encodeSignedClaim(revocation)], facilitator.publicKey)).toBe(true);
    }
    expect(isRevoked(signReceipt(facilitator, paid()), [revocation], facilitator.publicKey)).toBe(false);
  });

  it("isRevoked: false for a revocation signed by another key; malformed entries are ignored, never thrown", () => {
    const facilitatorRevocation = revokeReceipt(receipt, facilitator, { now });
    const foreign = signClaim(impostor, decodeClaim(facilitatorRevocation.claim));
    const relabelled = { ...foreign, signer: facilitator.publicKey };
    const notRevokes = signClaim(facilitator, {
      ...decodeClaim(facilitatorRevocation.claim),
      predicate: "was_paid",
    });
    const junk = [
      foreign,
      relabelled,
      notRevokes,
      new Uint8Array([0xff]),
      "%%%",
      { ...facilitatorRevocation, claim: flip(facilitatorRevocation.claim, 3) },
    ];
    expect(isRevoked(receipt, junk, facilitator.publicKey)).toBe(false);
    expect(isRevoked(receipt, [...junk, facilitatorRevocation], facilitator.publicKey)).toBe(true);
  });

  it("revokeReceipt refuses another facilitator's receipt, another currency, zero and more than paid", () => {
    expect(() => revokeReceipt(signReceipt(impostor, paid()), facilitator, { now })).toThrow(CborError);
    for (const refund of [
      { currency: "STRK" as const, amount: 1n },
      { currency: "USDC" as const, amount: 0n },
      { currency: "USDC" as const, amount: 1001n },
    ]) {
      expect(() => revokeReceipt(receipt, facilitator, { now, refund })).toThrow(
        expect.objectContaining({ at: "refund" }),
      );
    }
    expect(
      encodeClaim(
        decodeClaim(
          revokeReceipt(receipt, facilitator, { now, refund: { currency: "USDC", amount: 1000n } }).claim,
        ),
      ),
    ).toBeInstanceOf(Uint8Array);
  });
});

describe("refund messages of the local facilitator", () => {
  it("round-trip", () => {
    fc.assert(
      fc.property(
        fc.record(
          { receipt: fc.uint8Array({ maxLength: 80 }), amount: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) },
          { requiredKeys: ["receipt"] },
        ),
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 4 }),
        (request, list) => {
          expect(decodeCborRefundRequest(encodeCborRefundRequest(request))).toEqual(request);
          expect(decodeCborRevocationList(encodeCborRevocationList(list))).toEqual(list);
        },
      ),
    );
  });

  it.each<[string, CborValue, CborError["problem"]]>([
    ["no receipt", new Map([["amount", 1]]), "missing_key"],
    ["a text receipt", new Map([["receipt", "abc"]]), "wrong_type"],
    [
      "a negative amount",
      new Map<string, CborValue>([
        ["receipt", new Uint8Array(1)],
        ["amount", -1],
      ]),
      "wrong_type",
    ],
    [
      "an unknown key",
      new Map<string, CborValue>([
        ["receipt", new Uint8Array(1)],
        ["why", "x"],
      ]),
      "unknown_key",
    ],
    ["an array", [new Uint8Array(1)], "wrong_type"],
  ])("a refund request with %s is refused", (_name, value, problem) => {
    expect(() => decodeCborRefundRequest(encodeCanonical(value))).toThrow(
      expect.objectContaining({ problem }),
    );
  });

  it.each<[string, CborValue, CborError["problem"]]>([
    ["no list", new Map(), "missing_key"],
    ["text entries", new Map([["revocations", ["x"]]]), "wrong_type"],
    [
      "an unknown key",
      new Map<string, CborValue>([
        ["revocations", []],
        ["more", 1],
      ]),
      "unknown_key",
    ],
  ])("a revocation list with %s is refused", (_name, value, problem) => {
    expect(() => decodeCborRevocationList(encodeCanonical(value))).toThrow(
      expect.objectContaining({ problem }),
    );
  });
});
