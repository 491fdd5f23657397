// The costliest PAYMENT-SIGNATURE headers up to the header cap, and what decoding each costs in CPU.
// `npx tsx bench/cborWorstCase.ts` prints a table; `measureCborWorstCases()` returns the figures.
import { pathToFileURL } from "node:url";
import { decodeBase64 } from "../src/protocol/decodeBase64.js";
import { CborError, type CborProblem } from "../src/protocol/cbor/CborError.js";
import { MAX_CBOR_BYTES, MAX_CBOR_RECORD_ITEMS } from "../src/protocol/cbor/CborValue.js";
import { decodeClaim, decodeQuantifiedClaim, type Claim } from "../src/protocol/cbor/Claim.js";
import { issueHumanityClaim } from "../src/protocol/cbor/checkHumanityClaim.js";
import { encodeClaim } from "../src/protocol/cbor/Claim.js";
import { encodeCanonical } from "../src/protocol/cbor/encodeCanonical.js";
import { issueGrant } from "../src/protocol/cbor/issueGrant.js";
import { decodePaymentSignature, encodePaymentSignature } from "../src/protocol/cbor/PaymentSignature.js";
import { MAX_CBOR_PAYMENT_HEADER_CHARS } from "../src/protocol/cbor/profile.js";
import { decodeSignedClaim } from "../src/protocol/cbor/SignedClaim.js";
import { createSigningKey, type SigningKey } from "../src/protocol/cbor/signatures.js";
import { standInProof } from "../src/protocol/cbor/standInProof.js";

/** One PAYMENT-SIGNATURE header value and whether the profile takes it. */
export interface HeaderCase {
  name: string;
  header: string;
  /** What decoding must end in: `accepted` (a payment of the profile) or `refused: <problem>` (an attack). */
  expected: string;
}

/** What decoding a header as the gateway does ended in: `accepted`, or `refused: <problem> <where>`. */
export type Outcome = string;

/** The gateway's decoding of a header before any signature check: the envelope, the intent, each grant. */
export function decodeCborHeader(header: string): Outcome {
  try {
    const payment = decodePaymentSignature(decodeBase64(header));
    decodeQuantifiedClaim(payment.paymentIntent);
    const signed = [...(payment.delegationChain ?? [])];
    if (payment.humanityClaim !== undefined) signed.push(payment.humanityClaim);
    for (const link of signed) decodeClaim(decodeSignedClaim(link).claim);
    return "accepted";
  } catch (error) {
    if (!(error instanceof CborError)) throw error;
    return `refused: ${error.problem} ${error.at ?? ""}`.trim();
  }
}

/** A CBOR head: major type and argument, in shortest form. */
function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

const text = (value: string): number[] => [...head(3, value.length), ...Buffer.from(value, "utf8")];

/** How many `itemBytes`-byte items an array can hold in `room` bytes, with its own head. */
function fitting(itemBytes: number, room: number): number {
  let count = Math.floor((room - 5) / itemBytes);
  while (head(4, count).length + count * itemBytes > room) count--;
  return count;
}

const arrayOf = (item: number[], count: number): number[] => [
  ...head(4, count),
  ...Array.from({ length: count }, () => item).flat(),
];

/** `{ key: [item × count] }`. */
const mapOfArray = (key: string, item: number[], count: number): number[] => [
  ...head(5, 1),
  ...text(key),
  ...arrayOf(item, count),
];

/** `{ key: [item × as many as fit] }` in `room` bytes. */
const mapFilledWith = (key: string, item: number[], room: number): number[] =>
  mapOfArray(key, item, fitting(item.length, room - 1 - text(key).length));

/** A map of `count` distinct one-character keys outside ASCII (the reader's slower text path) to null. */
const nonAsciiKeys = (count: number): Uint8Array =>
  encodeCanonical(new Map(Array.from({ length: count }, (_, i) => [String.fromCharCode(0x800 + i), null])));

/** A map of `count` distinct two-character keys (in canonical order) to null. */
function mapOfKeys(count: number): number[] {
  const entries: number[] = [];
  for (let i = 0; i < count; i++) entries.push(0x62, i >> 7, i & 0x7f, 0xf6);
  return [...head(5, count), ...entries];
}

const EMPTY_MAP = [0xa0];
// 16 levels under the top map and its array: the deepest the profile's limit lets through.
const DEEP = [...Array.from({ length: 13 }, () => 0x81), 0x80];
const header = (bytes: number[] | Uint8Array): string =>
  Buffer.from(Uint8Array.from(bytes)).toString("base64");
const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);

/** A well-formed PaymentSignature whose `payment_intent` bytes are `intent`, with `grants` empty grants. */
function paymentHolding(intent: number[], grants = 0): Uint8Array {
  return encodePaymentSignature({
    paymentIntent: Uint8Array.from(intent),
    starkProof: new Uint8Array(32),
    signature: new Uint8Array(64),
    ...(grants > 0 ? { delegationChain: Array.from({ length: grants }, () => new Uint8Array()) } : {}),
  });
}

/** The largest legitimate payment: an ML-DSA-65 agent at the end of 4 ML-DSA-65 grants, with a humanity claim. */
function largestPayment(): Uint8Array {
  const keys: SigningKey[] = Array.from({ length: 6 }, (_, n) => createSigningKey("ml-dsa-65", seed(n + 1)));
  const now = Math.floor(Date.parse("2026-11-23T14:00:00Z") / 1000);
  const cap = { currency: "USDC" as const, amount: 1_000_000n };
  const chain = keys.slice(1, 5).map((delegate, i) =>
    issueGrant(keys[i] as SigningKey, {
      delegate: delegate.publicKey,
      scope: { kind: "any" },
      cap,
      validUntil: now + 3600,
    }),
  );
  const agent = keys[4] as SigningKey;
  const intent: Claim = {
    subject: agent.publicKey,
    predicate: "pays",
    object: "merchant:x402-demo",
    quantity: { currency: "USDC", amount: 1000n },
    time: now,
    context: new Uint8Array(32),
  };
  const paymentIntent = encodeClaim(intent);
  return encodePaymentSignature({
    paymentIntent,
    starkProof: standInProof(paymentIntent),
    signature: agent.sign(paymentIntent),
    humanityClaim: issueHumanityClaim(keys[5] as SigningKey, {
      subject: keys[0]!.publicKey,
      label: "issuer:demo",
      validUntil: now + 3600,
    }),
    delegationChain: chain,
  });
}

/** The small everyday payment: one Ed25519 intent. */
function smallPayment(): Uint8Array {
  const key = createSigningKey("ed25519", seed(9));
  const paymentIntent = encodeClaim({
    subject: key.publicKey,
    predicate: "pays",
    object: "merchant:x402-demo",
    quantity: { currency: "USDC", amount: 1000n },
    time: 1_795_000_000,
    context: new Uint8Array(32),
  });
  return encodePaymentSignature({
    paymentIntent,
    starkProof: standInProof(paymentIntent),
    signature: key.sign(paymentIntent),
  });
}

/** Every case, each header at most {@link MAX_CBOR_PAYMENT_HEADER_CHARS} long. */
export function worstCaseHeaders(): HeaderCase[] {
  const room = MAX_CBOR_BYTES;
  const intentRoom = room - paymentHolding([]).length - 5;
  // Items a message can hold under the bound besides its top map and one key: 1 + 2 + n.
  const under = MAX_CBOR_RECORD_ITEMS - 3;
  const attacks: Array<[string, number[] | Uint8Array, CborProblem]> = [
    // Up to the byte cap: what cost 90-180 ms each before the reader counted items.
    ["cap: array of empty maps (top level)", arrayOf(EMPTY_MAP, fitting(1, room)), "wrong_type"],
    [
      "cap: map holding an array of empty maps",
      mapFilledWith("delegation_chain", EMPTY_MAP, room),
      "too_many_items",
    ],
    [
      "cap: map holding an array of empty byte strings",
      mapFilledWith("delegation_chain", [0x40], room),
      "too_many_items",
    ],
    ["cap: map holding 16-deep nestings", mapFilledWith("delegation_chain", DEEP, room), "too_many_items"],
    ["cap: map of 16,000 distinct keys", mapOfKeys(Math.floor((room - 5) / 4)), "too_many_items"],
    [
      "cap: payment_intent holding an array of empty maps",
      paymentHolding(arrayOf(EMPTY_MAP, fitting(1, intentRoom))),
      "too_many_items",
    ],
    // Up to the item bound of a PaymentSignature and of an intent: read in full, then refused.
    [
      `items: map holding ${under} empty maps`,
      mapOfArray("delegation_chain", EMPTY_MAP, under),
      "missing_key",
    ],
    [
      "items: map holding 16-deep nestings",
      mapOfArray("delegation_chain", DEEP, Math.floor(under / DEEP.length)),
      "missing_key",
    ],
    [
      `items: map of ${(MAX_CBOR_RECORD_ITEMS - 1) >> 1} distinct non-ASCII keys`,
      nonAsciiKeys((MAX_CBOR_RECORD_ITEMS - 1) >> 1),
      "missing_key",
    ],
    [
      "items: PaymentSignature and its intent, each at the bound",
      paymentHolding(arrayOf(EMPTY_MAP, MAX_CBOR_RECORD_ITEMS - 1), MAX_CBOR_RECORD_ITEMS - 9),
      "wrong_type",
    ],
    ["huge count, short body", [0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xa0], "truncated"],
  ];
  const cases: HeaderCase[] = [
    { name: "Ed25519 payment (legitimate)", header: header(smallPayment()), expected: "accepted" },
    {
      name: "ML-DSA-65 payment, 4 grants, humanity claim (legitimate)",
      header: header(largestPayment()),
      expected: "accepted",
    },
    ...attacks.map(([name, bytes, problem]) => ({
      name,
      header: header(bytes),
      expected: `refused: ${problem}`,
    })),
  ];
  for (const c of cases) {
    if (c.header.length > MAX_CBOR_PAYMENT_HEADER_CHARS) throw new Error(`${c.name}: over the header cap`);
  }
  return cases;
}

export interface CaseFigures {
  name: string;
  headerChars: number;
  outcome: Outcome;
  /** Median CPU (user + system) per decode, in ms. */
  cpuMs: number;
  /** This case's CPU per decode ÷ the small payment's, paired round by round. */
  ratio: number;
}

/** CPU ms per call of `op`, over a batch of `n`. */
function cpuPerCall(op: () => unknown, n: number): number {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) op();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** Decode each case in interleaved rounds of about `batchMs` each; CPU per decode, median of the rounds. */
export function measureCborWorstCases(options: { rounds?: number; batchMs?: number } = {}): CaseFigures[] {
  const rounds = options.rounds ?? 5;
  const batchMs = options.batchMs ?? 200;
  const cases = worstCaseHeaders();
  const batches = cases.map((c) => {
    const outcome = decodeCborHeader(c.header);
    if (!outcome.startsWith(c.expected)) throw new Error(`${c.name}: ${outcome}, not ${c.expected}`);
    const once = Math.max(
      cpuPerCall(() => decodeCborHeader(c.header), 3),
      0.001,
    );
    return { c, outcome, n: Math.max(3, Math.ceil(batchMs / once)) };
  });
  const samples = batches.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    batches.forEach(({ c, n }, i) => samples[i]?.push(cpuPerCall(() => decodeCborHeader(c.header), n)));
  }
  const base = samples[0] ?? [];
  return batches.map(({ c, outcome }, i) => ({
    name: c.name,
    headerChars: c.header.length,
    outcome,
    cpuMs: median(samples[i] ?? []),
    ratio: median((samples[i] ?? []).map((ms, round) => ms / (base[round] ?? Number.NaN))),
  }));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const f of measureCborWorstCases()) {
    console.log(
      `${f.name.padEnd(58)} ${String(f.headerChars).padStart(6)} chars  ${f.cpuMs.toFixed(3).padStart(9)} ms CPU  ×${f.ratio.toFixed(1).padStart(7)}  ${f.outcome}`,
    );
  }
}
