import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CborError } from "../../../src/protocol/cbor/CborError.js";
import { CborTag, type CborValue } from "../../../src/protocol/cbor/CborValue.js";
import { CLAIM_PARTS, encodeClaim, type Claim, type ClaimPart } from "../../../src/protocol/cbor/Claim.js";
import { decodeCanonical } from "../../../src/protocol/cbor/decodeCanonical.js";
import { encodeCanonical } from "../../../src/protocol/cbor/encodeCanonical.js";
import { checkIntentForm } from "../../../src/protocol/cbor/masks/checkIntentForm.js";
import { deriveMaskHpkeKey, sealToFacilitator } from "../../../src/protocol/cbor/masks/maskHpke.js";
import { maskIntent } from "../../../src/protocol/cbor/masks/maskIntent.js";
import { openWireIntent } from "../../../src/protocol/cbor/masks/openWireIntent.js";
import {
  HIDDEN_PAYER_OPENINGS_BYTES,
  HIDDEN_SUBJECT_SEALED_BYTES,
  MIN_PAD_BYTES,
  encodePadded,
} from "../../../src/protocol/cbor/masks/maskPadding.js";
import {
  ALLOWED_MASK_TAGS,
  MASK_SECTIONS,
  OPEN_FIELDS_MASK,
  completeMask,
  decodeMaskDocument,
  encodeMaskDocument,
  maskRefOf,
  resolveMask,
  type MaskTag,
  type RevelationMask,
} from "../../../src/protocol/cbor/masks/RevelationMask.js";
import { decodeWireIntent } from "../../../src/protocol/cbor/masks/WireIntent.js";
import {
  decodeCborFacilitatorRequest,
  encodeCborFacilitatorRequest,
} from "../../../src/protocol/cbor/facilitatorMessages.js";
import {
  decodePaymentSignature,
  encodePaymentSignature,
} from "../../../src/protocol/cbor/PaymentSignature.js";

/** These tests open intents, they never check a signature: any 64 bytes sign. */
const unsigned = () => new Uint8Array(64);
const tagsOf = (section: Record<ClaimPart, string>) =>
  new Map<string, CborValue>(CLAIM_PARTS.map((part) => [part, section[part]]));
const open = OPEN_FIELDS_MASK.intent;
/** A mask document's map with `change` applied (to build hostile variants of a valid one). */
function document(change: (map: Map<string, CborValue>) => void = () => undefined): Uint8Array {
  const map = new Map<string, CborValue>([
    ["mask", "x402+cbor/v0.3/mask"],
    ["intent", tagsOf({ ...open, subject: "Commit" })],
    ["claims", tagsOf(open)],
    ["receipt", tagsOf({ ...open, subject: "Commit" })],
  ]);
  change(map);
  return encodeCanonical(map);
}

describe("the mask document", () => {
  it("round-trips, and its ref is the SHA-256 of its canonical bytes; all Open is the default label", () => {
    const bytes = document();
    const mask = decodeMaskDocument(bytes);
    expect(encodeMaskDocument(mask)).toEqual(bytes);
    expect(maskRefOf(mask)).toBe(`mask:v0.3:sha256:${createHash("sha256").update(bytes).digest("hex")}`);
    expect(maskRefOf(OPEN_FIELDS_MASK)).toBe("mask:v0.3:open-fields");
    expect(resolveMask("mask:v0.3:open-fields", undefined)).toEqual(OPEN_FIELDS_MASK);
    expect(resolveMask(maskRefOf(mask), bytes)).toEqual(mask);
  });

  const valid = document();
  const nonCanonical = new Uint8Array([0xbf, ...valid.subarray(1), 0xff]);
  const float = new Uint8Array([0xa1, 0x64, ...Buffer.from("mask"), 0xf9, 0x3c, 0x00]);
  const unsorted = new Uint8Array([
    0xa2,
    0x64,
    ...Buffer.from("mask"),
    0x00,
    0x63,
    ...Buffer.from("abc"),
    0x00,
  ]);

  it.each<[string, Uint8Array, CborError["problem"]]>([
    ["empty input", new Uint8Array(0), "empty"],
    ["an array, not a map", encodeCanonical([1, 2]), "wrong_type"],
    ["an indefinite-length map", nonCanonical, "indefinite_length"],
    ["another label", document((map) => map.set("mask", "x402+cbor/v0.2/mask")), "wrong_value"],
    ["no label", document((map) => map.delete("mask")), "missing_key"],
    ["a missing family", document((map) => map.delete("claims")), "missing_key"],
    ["an extra family", document((map) => map.set("extra", tagsOf(open))), "unknown_key"],
    ["a family that is not a map", document((map) => map.set("intent", ["Open"])), "wrong_type"],
    [
      "a part missing",
      document((map) => (map.get("intent") as Map<string, CborValue>).delete("time")),
      "missing_key",
    ],
    [
      "an unknown part",
      document((map) => (map.get("intent") as Map<string, CborValue>).set("amount", "Open")),
      "unknown_key",
    ],
    [
      "an unknown tag",
      document((map) => map.set("intent", tagsOf({ ...open, time: "Hidden" }))),
      "wrong_value",
    ],
    [
      "a tag in lower case",
      document((map) => map.set("intent", tagsOf({ ...open, time: "open" }))),
      "wrong_value",
    ],
    [
      "a tag that is not text",
      document((map) => (map.get("intent") as Map<string, CborValue>).set("time", 1)),
      "wrong_type",
    ],
    [
      "a hidden quantity",
      document((map) => map.set("intent", tagsOf({ ...open, quantity: "Commit" }))),
      "wrong_value",
    ],
    [
      "a hidden context",
      document((map) => map.set("intent", tagsOf({ ...open, context: "ZK" }))),
      "wrong_value",
    ],
    ["a ZK subject", document((map) => map.set("intent", tagsOf({ ...open, subject: "ZK" }))), "wrong_value"],
    [
      "a hidden claim part",
      document((map) => map.set("claims", tagsOf({ ...open, subject: "Commit" }))),
      "wrong_value",
    ],
    [
      "an Encrypted receipt part",
      document((map) => map.set("receipt", tagsOf({ ...open, subject: "Encrypted" }))),
      "wrong_value",
    ],
    [
      "a hidden payer back in clear in the receipt",
      document((map) => map.set("receipt", tagsOf(open))),
      "wrong_value",
    ],
    ["a float", float, "float"],
    ["keys out of canonical order", unsorted, "unsorted_keys"],
    ["trailing bytes", new Uint8Array([...valid, 0]), "trailing_bytes"],
    ["a truncated document", valid.subarray(0, valid.length - 3), "truncated"],
    [
      "the label in a date tag",
      document((map) => map.set("mask", new CborTag(0, "x402+cbor/v0.3/mask"))),
      "tag",
    ],
  ])("refuses %s", (_, bytes, problem) => {
    expect(() => decodeMaskDocument(bytes)).toThrow(CborError);
    try {
      decodeMaskDocument(bytes);
    } catch (error) {
      expect((error as CborError).problem).toBe(problem);
    }
  });

  it("a ref must name the document that came with it", () => {
    expect(() => resolveMask("mask:v0.3:sha256:00", document())).toThrow(/digest/);
    expect(() => resolveMask(maskRefOf(decodeMaskDocument(document())), undefined)).toThrow(/did not come/);
  });

  const tagArbitrary = (allowed: readonly MaskTag[]) => fc.constantFrom(...allowed);
  const maskArbitrary: fc.Arbitrary<RevelationMask> = fc
    .record(
      Object.fromEntries(
        MASK_SECTIONS.map((section) => [
          section,
          fc.record(
            Object.fromEntries(
              CLAIM_PARTS.map((part) => [part, tagArbitrary(ALLOWED_MASK_TAGS[section][part])]),
            ) as Record<ClaimPart, fc.Arbitrary<MaskTag>>,
          ),
        ]),
      ) as Record<"intent" | "claims" | "receipt", fc.Arbitrary<Record<ClaimPart, MaskTag>>>,
    )
    .map((mask) => ({
      ...mask,
      receipt: { ...mask.receipt, subject: mask.intent.subject === "Open" ? mask.receipt.subject : "Commit" },
    }));

  it("property: every allowed mask round-trips byte for byte and resolves by its ref", () => {
    fc.assert(
      fc.property(maskArbitrary, (mask) => {
        const bytes = encodeMaskDocument(mask);
        expect(decodeMaskDocument(bytes)).toEqual(mask);
        expect(
          resolveMask(maskRefOf(mask), maskRefOf(mask) === "mask:v0.3:open-fields" ? undefined : bytes),
        ).toEqual(mask);
      }),
    );
  });

  it("property: random bytes and random maps are refused with a CborError, never another throw", () => {
    const anyValue = fc.letrec<{ value: CborValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom<CborValue>("Open", "Commit", "ZK", "x402+cbor/v0.3/mask", null, true, 0),
        fc.string({ maxLength: 8 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.array(tie("value"), { maxLength: 3 }),
        fc
          .dictionary(fc.constantFrom("mask", "intent", "claims", "receipt", ...CLAIM_PARTS), tie("value"), {
            maxKeys: 6,
          })
          .map((record) => new Map(Object.entries(record))),
      ),
    })).value;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          anyValue.map((value) => encodeCanonical(value)),
        ),
        (bytes) => {
          try {
            decodeMaskDocument(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(CborError);
          }
        },
      ),
    );
  });
});

const context = new Uint8Array(32).fill(5);
const claim: Claim = {
  subject: new Uint8Array(32).fill(1),
  predicate: "pays",
  object: "merchant:m",
  quantity: { currency: "USDC", amount: 10n },
  time: 1_800_000_000,
  context,
};

describe("masked intents", () => {
  it.each<[string, CborValue, CborError["problem"]]>([
    [
      "a hiding form with two keys",
      new Map([
        ["commit", new Uint8Array(32)],
        ["zk", new Uint8Array(32)],
      ]),
      "wrong_type",
    ],
    ["an unknown hiding form", new Map([["salt", new Uint8Array(32)]]), "unknown_key"],
    ["a short commitment", new Map([["commit", new Uint8Array(31)]]), "wrong_value"],
    ["a commitment that is text", new Map([["commit", "00"]]), "wrong_type"],
    ["a ciphertext shorter than enc and tag", new Map([["hpke", new Uint8Array(47)]]), "wrong_value"],
    ["an empty map", new Map(), "wrong_type"],
  ])("the wire form refuses %s", (_, hidden, problem) => {
    const parts: CborValue[] = [hidden, "pays", "merchant:m", ["USDC", 10], new CborTag(1, 1), context];
    try {
      decodeWireIntent(encodeCanonical(parts));
      expect.unreachable();
    } catch (error) {
      expect((error as CborError).problem).toBe(problem);
    }
  });

  it.each<[ClaimPart, number]>([
    ["predicate", 1],
    ["object", 2],
    ["quantity", 3],
    ["context", 5],
  ])("no mask may hide the intent's %s: refused on the wire", (part, index) => {
    const parts: CborValue[] = [
      claim.subject,
      "pays",
      "merchant:m",
      ["USDC", 10],
      new CborTag(1, 1),
      context,
    ];
    parts[index] = new Map([["commit", new Uint8Array(32)]]);
    expect(() => decodeWireIntent(encodeCanonical(parts))).toThrow(`never hides the intent's ${part}`);
  });

  it("property: whatever a mask hides, the facilitator opens the intent back to the claim", async () => {
    const key = await deriveMaskHpkeKey(new Uint8Array(32).fill(3));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<MaskTag>("Open", "Commit", "Encrypted"),
        fc.constantFrom<MaskTag>("Open", "Commit", "Encrypted", "ZK"),
        fc.integer({ min: 0, max: 2 ** 40 }),
        async (subject, time, seconds) => {
          const mask = completeMask({
            intent: { subject, time },
            receipt: { subject: subject === "Open" ? "Open" : "Commit" },
          });
          const masked = await maskIntent({ ...claim, time: seconds }, mask, key.publicKey, unsigned);
          const wire = decodeWireIntent(masked.paymentIntent);
          expect(checkIntentForm(mask, wire)).toBeUndefined();
          expect(checkIntentForm(OPEN_FIELDS_MASK, wire) === undefined).toBe(
            subject === "Open" && time === "Open",
          );
          const opened = await openWireIntent(wire, mask, masked.openings, key);
          expect(opened.ok).toBe(true);
          if (!opened.ok) return;
          expect(opened.claim.subject).toEqual(claim.subject);
          expect(opened.claim.time).toBe(time === "ZK" ? undefined : seconds);
          if (subject === "Open" && time === "Open")
            expect(masked.paymentIntent).toEqual(encodeClaim({ ...claim, time: seconds }));
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe("HPKE keys handed over as Buffers", () => {
  it("a key decoded from base64 (a Buffer, often a view of a shared pool) seals to the facilitator", async () => {
    const key = await deriveMaskHpkeKey(Buffer.from("07".repeat(32), "hex"));
    const published = Buffer.from(Buffer.from(key.publicKey).toString("base64"), "base64");
    const mask = completeMask({ intent: { subject: "Encrypted" }, receipt: { subject: "Commit" } });
    const masked = await maskIntent(claim, mask, published, unsigned);
    const opened = await openWireIntent(decodeWireIntent(masked.paymentIntent), mask, masked.openings, key);
    expect(opened).toMatchObject({ ok: true, claim: { subject: claim.subject } });
  });
});

describe("the facilitator opens only what matches", () => {
  const mask = completeMask({
    intent: { subject: "Commit", time: "Commit" },
    receipt: { subject: "Commit" },
  });
  const sealedMask = completeMask({ intent: { subject: "Encrypted" }, receipt: { subject: "Commit" } });
  const salt = new Uint8Array(16).fill(4);
  const subject = claim.subject;
  const time = new CborTag(1, claim.time);

  async function openWith(
    openings: (key: Uint8Array) => Promise<Uint8Array>,
  ): Promise<{ ok: boolean; reason?: string }> {
    const key = await deriveMaskHpkeKey(new Uint8Array(32).fill(8));
    const masked = await maskIntent(claim, mask, key.publicKey, unsigned);
    return openWireIntent(decodeWireIntent(masked.paymentIntent), mask, await openings(key.publicKey), key);
  }
  /** Openings as a payer hiding the subject seals them: with its signature, padded to the bucket. */
  const seal =
    (value: CborValue, info = "x402+cbor/v0.3/mask/openings", aad = context) =>
    (key: Uint8Array) =>
      sealToFacilitator(
        key,
        value instanceof Map
          ? encodePadded(
              (pad) => new Map([...value, ["signature", new Uint8Array(64)], ["pad", pad]]),
              HIDDEN_PAYER_OPENINGS_BYTES,
            )
          : encodeCanonical(value),
        info,
        aad,
      );

  /** Openings sealed exactly as given: no signature added, no pad. */
  const sealRaw = (value: CborValue) => (key: Uint8Array) =>
    sealToFacilitator(key, encodeCanonical(value), "x402+cbor/v0.3/mask/openings", context);
  /** The right openings, padded, with `signature` (if any) and a pad whose first byte is `padByte`. */
  const sealPadded =
    (extra: Array<[string, CborValue]>, signature: CborValue | undefined, padByte = 0) =>
    (key: Uint8Array) => {
      const plain = encodePadded((pad) => {
        if (pad.length > 0) pad[0] = padByte;
        return new Map<string, CborValue>([
          ["subject", [salt, subject]],
          ["time", [salt, time]],
          ...extra,
          ...(signature === undefined ? [] : ([["signature", signature]] as Array<[string, CborValue]>)),
          ["pad", pad],
        ]);
      }, HIDDEN_PAYER_OPENINGS_BYTES);
      return sealToFacilitator(key, plain, "x402+cbor/v0.3/mask/openings", context);
    };

  it.each<[string, (key: Uint8Array) => Promise<Uint8Array>, RegExp]>([
    ["an opening missing", seal(new Map([["subject", [salt, subject]]])), /^mask_violation/],
    [
      "an opening of an Open part",
      seal(
        new Map<string, CborValue>([
          ["subject", [salt, subject]],
          ["time", [salt, time]],
          ["object", [salt, "m"]],
        ]),
      ),
      /^mask_violation: opening of object/,
    ],
    ["openings that are not a map", seal([[salt, subject]]), /^mask_violation/],
    [
      "a 15-byte salt",
      seal(
        new Map<string, CborValue>([
          ["subject", [salt.subarray(1), subject]],
          ["time", [salt, time]],
        ]),
      ),
      /^mask_violation/,
    ],
    [
      "openings of other values (they do not hash to the commitments)",
      seal(
        new Map<string, CborValue>([
          ["subject", [salt, subject]],
          ["time", [salt, time]],
        ]),
      ),
      /^commitment_mismatch: subject/,
    ],
    [
      "openings sealed under another info",
      seal(new Map([["subject", [salt, subject]]]), "x402+cbor/v0.3/mask/encrypted/subject"),
      /^hpke_open_failed/,
    ],
    [
      "openings sealed for another offer (aad)",
      seal(new Map([["subject", [salt, subject]]]), undefined, new Uint8Array(32)),
      /^hpke_open_failed/,
    ],
    [
      "openings sealed to another key",
      async () => seal(new Map())(new Uint8Array(32).fill(2)),
      /^hpke_open_failed/,
    ],
    // A hidden subject: the signature sealed, the whole padded to HIDDEN_PAYER_OPENINGS_BYTES.
    [
      "openings with the signature but not padded",
      sealRaw(
        new Map<string, CborValue>([
          ["subject", [salt, subject]],
          ["time", [salt, time]],
          ["signature", new Uint8Array(64)],
        ]),
      ),
      /^mask_violation: openings not padded/,
    ],
    ["padded openings without a signature", sealPadded([], /* signature */ undefined), /^mask_violation/],
    ["a pad that is not all zeros", sealPadded([], new Uint8Array(64), 1), /^mask_violation: opening of pad/],
    ["a signature that is text", sealPadded([], "a signature"), /^mask_violation: opening of signature/],
    [
      "padded openings one byte short",
      async (key) => {
        const full = encodePadded(
          (pad) =>
            new Map<string, CborValue>([
              ["signature", new Uint8Array(64)],
              ["pad", pad],
            ]),
          HIDDEN_PAYER_OPENINGS_BYTES - 1,
        );
        return sealToFacilitator(key, full, "x402+cbor/v0.3/mask/openings", context);
      },
      /^mask_violation: openings not padded/,
    ],
  ])("refuses %s", async (_name, openings, reason) => {
    const opened = await openWith(openings);
    expect(opened.ok).toBe(false);
    expect(opened.reason).toMatch(reason);
  });

  it.each<[string, CborValue, RegExp, boolean?]>([
    ["a plaintext that is not [salt, value]", subject, /^mask_violation/],
    ["a subject of the wrong type", [salt, "a text key"], /^mask_violation/],
    ["a subject of the wrong length", [salt, new Uint8Array(31)], /^mask_violation/],
    ["an unpadded subject", [salt, subject], /^mask_violation: subject not padded/, false],
  ])("refuses an Encrypted part holding %s", async (_name, plaintext, reason, padded = true) => {
    const key = await deriveMaskHpkeKey(new Uint8Array(32).fill(8));
    const sealed = await sealToFacilitator(
      key.publicKey,
      Array.isArray(plaintext) && padded
        ? encodePadded((pad) => [...plaintext, pad], HIDDEN_SUBJECT_SEALED_BYTES)
        : encodeCanonical(plaintext),
      "x402+cbor/v0.3/mask/encrypted/subject",
      context,
    );
    const parts: CborValue[] = [
      new Map([["hpke", sealed]]),
      "pays",
      "merchant:m",
      ["USDC", 10],
      time,
      context,
    ];
    const openings = await seal(new Map())(key.publicKey);
    const opened = await openWireIntent(decodeWireIntent(encodeCanonical(parts)), sealedMask, openings, key);
    expect(opened.ok).toBe(false);
    expect((opened as { reason: string }).reason).toMatch(reason);
  });
});

describe("the fields masks add to existing messages", () => {
  const signature = {
    paymentIntent: encodeClaim(claim),
    starkProof: new Uint8Array(32),
    signature: new Uint8Array(64),
  };

  it("PaymentSignature.openings and the facilitator request's revelationMask round-trip; absent stays absent", () => {
    const withOpenings = { ...signature, openings: new Uint8Array([1, 2, 3]) };
    expect(decodePaymentSignature(encodePaymentSignature(withOpenings))).toEqual(withOpenings);
    expect(decodePaymentSignature(encodePaymentSignature(signature))).toEqual(signature);
    const request = { paymentRequest: new Uint8Array([1]), paymentSignature: new Uint8Array([2]) };
    const withMask = { ...request, revelationMask: encodeMaskDocument(OPEN_FIELDS_MASK) };
    expect(decodeCborFacilitatorRequest(encodeCborFacilitatorRequest(withMask))).toEqual(withMask);
    expect(decodeCborFacilitatorRequest(encodeCborFacilitatorRequest(request))).toEqual(request);
  });

  it.each<[string, () => unknown]>([
    [
      "openings that are text",
      () =>
        decodePaymentSignature(
          encodeCanonical(
            new Map<string, CborValue>([
              ["payment_intent", signature.paymentIntent],
              ["stark_proof", signature.starkProof],
              ["signature", signature.signature],
              ["openings", "sealed"],
            ]),
          ),
        ),
    ],
    [
      "a revelationMask that is an array",
      () =>
        decodeCborFacilitatorRequest(
          encodeCanonical(
            new Map<string, CborValue>([
              ["x402Version", 2],
              ["paymentRequest", new Uint8Array([1])],
              ["paymentSignature", new Uint8Array([2])],
              ["revelationMask", [new Uint8Array([3])]],
            ]),
          ),
        ),
    ],
  ])("refuses %s", (_name, decode) => {
    expect(decode).toThrow(expect.objectContaining({ problem: "wrong_type" }));
  });
});

describe("a hidden payer's padding", () => {
  const salt = new Uint8Array(16);
  // Ed25519 (64), EVM (65: r ‖ s ‖ v), Stark (2 to 4 felts of 32 bytes), ML-DSA-65 (3,309).
  const SIGNATURES = [64, 65, 64, 96, 128, 3309];
  const KEYS = [32, 20, 32, 1952];

  it("every algorithm's signature and key fill the same openings and Encrypted subject sizes", () => {
    for (const signatureBytes of SIGNATURES)
      for (const keyBytes of KEYS) {
        const openings = encodePadded(
          (pad) =>
            new Map<string, CborValue>([
              ["subject", [salt, new Uint8Array(keyBytes)]],
              ["time", [salt, new CborTag(1, 2 ** 40)]],
              ["signature", new Uint8Array(signatureBytes)],
              ["pad", pad],
            ]),
          HIDDEN_PAYER_OPENINGS_BYTES,
        );
        expect(openings.length).toBe(HIDDEN_PAYER_OPENINGS_BYTES);
        const subject = encodePadded(
          (pad) => [salt, new Uint8Array(keyBytes), pad],
          HIDDEN_SUBJECT_SEALED_BYTES,
        );
        expect(subject.length).toBe(HIDDEN_SUBJECT_SEALED_BYTES);
      }
  });

  it("property: any content up to the bucket pads to exactly its size, the pad all zeros", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: HIDDEN_PAYER_OPENINGS_BYTES - 32 - MIN_PAD_BYTES }), (length) => {
        const bytes = encodePadded(
          (pad) =>
            new Map<string, CborValue>([
              ["signature", new Uint8Array(length)],
              ["pad", pad],
            ]),
          HIDDEN_PAYER_OPENINGS_BYTES,
        );
        expect(bytes.length).toBe(HIDDEN_PAYER_OPENINGS_BYTES);
        const pad = decodeCanonical(bytes, { expect: "map" }).get("pad") as Uint8Array;
        expect(pad.every((byte) => byte === 0)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("content larger than the bucket is refused, never sent unpadded", () => {
    expect(() =>
      encodePadded(
        (pad) =>
          new Map([
            ["signature", new Uint8Array(HIDDEN_PAYER_OPENINGS_BYTES)],
            ["pad", pad],
          ]),
        HIDDEN_PAYER_OPENINGS_BYTES,
      ),
    ).toThrow(RangeError);
  });
});
