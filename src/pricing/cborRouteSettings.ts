import { z } from "zod/v4";
import { outboundUrl } from "../common/outboundUrl.js";
import { DELEGATION_DEFAULTS } from "../protocol/cbor/checkDelegationChain.js";
import { CLAIM_PARTS } from "../protocol/cbor/Claim.js";
import { MASK_TAGS } from "../protocol/cbor/masks/RevelationMask.js";
import { CURRENCIES } from "../protocol/cbor/profile.js";
import { decimalIntegerString } from "../protocol/schemas.js";
import { humanityIssuersSchema } from "./humanityIssuers.js";
import { DEFAULT_ACCEPTED_SIGNERS, SIGNER_BACKEND_NAMES } from "../signers/SignerBackend.js";
import { LAYER_TWO_SIGNER_DEFAULTS } from "../signers/layerTwoSignerDefaults.js";

/** Which signer backends a route accepts (docs/cbor.md, Signer backends). */
export const acceptedSignersSchema = z
  .array(z.enum(SIGNER_BACKEND_NAMES))
  .min(1)
  .refine((list) => new Set(list).size === list.length, "a backend is listed twice")
  .meta({
    description: `Signer backends whose intents the route accepts: ${SIGNER_BACKEND_NAMES.map((name) => `\`${name}\``).join(", ")}. Default ${DEFAULT_ACCEPTED_SIGNERS.map((name) => `\`${name}\``).join(" and ")}; an intent of another is \`402 signer_not_accepted\`, one of an unbuilt backend \`402 signer_not_built\`.`,
  });

const maskSectionSchema = z.partialRecord(z.enum(CLAIM_PARTS), z.enum(MASK_TAGS));

/** A route's revelation mask, as configured (docs/cbor.md, Revelation masks). */
export const revelationMaskSchema = z.strictObject({
  /** Tags of the payer's intent parts (v0.3: `subject` Commit or Encrypted, `time` also ZK). */
  intent: maskSectionSchema.optional().meta({
    description: "Tags of the payer's intent parts (v0.3: `subject` Commit or Encrypted, `time` also ZK).",
  }),
  /** Tags of the parts of signed claims (grants, humanity claims): Open only in v0.3. */
  claims: maskSectionSchema.optional().meta({
    description: "Tags of the parts of signed claims (grants, humanity claims): Open only in v0.3.",
  }),
  /** Tags of the receipt's parts (v0.3: `subject` Commit; it must be when the intent hides it). */
  receipt: maskSectionSchema.optional().meta({
    description: "Tags of the receipt's parts (v0.3: `subject` Commit; it must be when the intent hides it).",
  }),
});

/** Defaults of the x402+cbor settings, written once. */
export const CBOR_DEFAULTS = {
  /** How long a CBOR PaymentRequest stays valid, in seconds (deadlines fall on whole minutes). */
  deadlineSeconds: 300,
  /** Clock difference tolerated when checking a deadline, in seconds. */
  skewSeconds: 30,
} as const;

/** What a route offers in `application/x402+cbor`; its presence turns the format on for the route. */
export const cborRouteSchema = z.strictObject({
  /** Currency of the CBOR price: `USDC`, `STRK` or `strkBTC`. */
  currency: z
    .enum(CURRENCIES)
    .meta({ description: "Currency of the CBOR price: `USDC`, `STRK` or `strkBTC`." }),
  /** In the currency's smallest unit (USDC: 6 decimals, STRK: 18, strkBTC: 8). */
  amount: decimalIntegerString
    .refine((value) => value !== "0", "a CBOR price cannot be zero")
    .meta({ description: "In the currency's smallest unit (USDC: 6 decimals, STRK: 18, strkBTC: 8)." }),
  /** How the merchant is named on the wire (never the raw wallet); default `cbor.merchantPseudonym`. */
  merchantPseudonym: z.string().min(1).optional().meta({
    description:
      "How the merchant is named on the wire (never the raw wallet); default `cbor.merchantPseudonym`.",
  }),
  /** The route's id in the offer; default the route key, e.g. `GET /api/quote`. */
  serviceId: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "The route's id in the offer; default the route key, e.g. `GET /api/quote`." }),
  /**
   * `revelation_mask_ref` of the PaymentRequest; it must name the route's mask: `mask:v0.3:open-fields`
   * (the default) or the `mask:v0.3:sha256:…` of `revelationMask`.
   */
  revelationMaskRef: z.string().min(1).optional().meta({
    description:
      "`revelation_mask_ref` of the PaymentRequest; it must name the route's mask: `mask:v0.3:open-fields` (the default) or the `mask:v0.3:sha256:…` of `revelationMask`.",
  }),
  /**
   * The route's revelation mask: per family (`intent`, `claims`, `receipt`) a tag (`Open`, `Commit`,
   * `Encrypted`, `ZK`) per claim part; parts not named are Open. The offer names it by digest
   * (`mask:v0.3:sha256:…`) and carries it in `X402-Revelation-Mask`. Default all Open
   * (`mask:v0.3:open-fields`).
   */
  revelationMask: revelationMaskSchema.optional().meta({
    description:
      "The route's revelation mask: per family (`intent`, `claims`, `receipt`) a tag (`Open`, `Commit`, `Encrypted`, `ZK`) per claim part; parts not named are Open. The offer names it by digest (`mask:v0.3:sha256:…`) and carries it in `X402-Revelation-Mask`. Default all Open (`mask:v0.3:open-fields`).",
  }),
  /** `claim_schema_ref` of the PaymentRequest. Default `schema:v0.3:payment-intent`. */
  claimSchemaRef: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "`claim_schema_ref` of the PaymentRequest. Default `schema:v0.3:payment-intent`." }),
  /**
   * `accepts_humanity_gate` of the PaymentRequest: CBOR payers must add a humanity claim from a trusted
   * issuer (`humanityIssuers`). Default false.
   */
  acceptsHumanityGate: z.boolean().optional().meta({
    description:
      "`accepts_humanity_gate` of the PaymentRequest: CBOR payers must add a humanity claim from a trusted issuer (`humanityIssuers`). Default false.",
  }),
  /**
   * Humanity-claim issuers this route trusts (public keys in hex); replaces `cbor.humanityIssuers` for the
   * route.
   */
  humanityIssuers: humanityIssuersSchema.optional().meta({
    description:
      "Humanity-claim issuers this route trusts (public keys in hex); replaces `cbor.humanityIssuers` for the route.",
  }),
  /** Lifetime of an offer, in seconds (rounded up to the minute grid); default `cbor.deadlineSeconds`. */
  deadlineSeconds: z.number().int().min(60).optional().meta({
    description:
      "Lifetime of an offer, in seconds (rounded up to the minute grid); default `cbor.deadlineSeconds`.",
  }),
  signers: acceptedSignersSchema
    .optional()
    .meta({ description: "Signer backends this route accepts; replaces `cbor.signers` for the route." }),
});
export type CborRouteConfig = z.infer<typeof cborRouteSchema>;

/** The CBOR facilitator: where `/verify` and `/settle` go in `application/x402+cbor`. */
export const cborFacilitatorSettingsSchema = z.strictObject({
  /** Base URL of the CBOR facilitator (`/verify`, `/settle`, `/supported`). */
  url: outboundUrl("the CBOR facilitator's base URL").meta({
    description: "Base URL of the CBOR facilitator (`/verify`, `/settle`, `/supported`).",
  }),
  /** Timeout of CBOR `/verify`, in ms. Default 10000. */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of CBOR `/verify`, in ms. Default 10000." }),
  /** Timeout of CBOR `/settle`, in ms. Default 30000. */
  settleTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of CBOR `/settle`, in ms. Default 30000." }),
  /** Timeout of CBOR `/supported`, in ms. Default 5000. */
  supportedTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of CBOR `/supported`, in ms. Default 5000." }),
  /** Extra headers (e.g. auth) on every CBOR facilitator call. */
  headers: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: "Extra headers (e.g. auth) on every CBOR facilitator call." }),
});

/** How much of a `delegation_chain` CBOR payments may carry (docs/cbor.md, Delegation). */
export const delegationSettingsSchema = z.strictObject({
  /** Most grants in one delegation chain; a longer chain is `402 delegation_invalid`. Default 4. */
  maxChainLength: z.number().int().min(1).max(16).default(DELEGATION_DEFAULTS.maxChainLength).meta({
    description:
      "Most grants in one delegation chain; a longer chain is `402 delegation_invalid`. Default 4.",
  }),
  /** Most bytes of all the grants of one chain together; more is `402 delegation_invalid`. Default 32768. */
  maxChainBytes: z
    .number()
    .int()
    .min(256)
    .max(64 * 1024)
    .default(DELEGATION_DEFAULTS.maxChainBytes)
    .meta({
      description:
        "Most bytes of all the grants of one chain together; more is `402 delegation_invalid`. Default 32768.",
    }),
});

/** The layer-2 (Starknet) signer backend: its SNIP-12 chain id and the node that checks contract accounts. */
export const layerTwoSignerSettingsSchema = z.strictObject({
  chainId: z
    .string()
    .regex(/^[\x20-\x7e]{1,31}$/, "expected a short string (1–31 printable ASCII characters)")
    .default(LAYER_TWO_SIGNER_DEFAULTS.chainId)
    .meta({
      description:
        "The SNIP-12 domain's `chainId` payers sign under (`SN_MAIN`, `SN_SEPOLIA`; the local stack: `X402_LOCAL`). Default `SN_MAIN`.",
    }),
  rpcUrl: outboundUrl("the layer-2 node's JSON-RPC base URL").optional().meta({
    description:
      "Starknet JSON-RPC base URL contract accounts are checked through (`is_valid_signature`, at `{rpcUrl}/rpc/v0_10`). Default `recognition.rpcUrl`; with neither, only direct Stark keys pay.",
  }),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Timeout of one `is_valid_signature` call, in ms. Default 5000." }),
  cacheTtlMs: z.number().int().nonnegative().optional().meta({
    description: "How long an account's verdict on one signature is kept, in ms. Default 60000.",
  }),
  maxEntries: z
    .number()
    .int()
    .positive()
    .optional()
    .meta({ description: "Signature verdicts kept (least recently used dropped first). Default 10000." }),
});
export type LayerTwoSignerSettings = z.output<typeof layerTwoSignerSettingsSchema>;

/** Settings every CBOR route shares. */
export const cborSettingsSchema = z.strictObject({
  /** Default `merchantPseudonym` of CBOR routes. */
  merchantPseudonym: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "Default `merchantPseudonym` of CBOR routes." }),
  /** Facilitator for CBOR payments; default the `facilitator` above. */
  facilitator: cborFacilitatorSettingsSchema
    .optional()
    .meta({ description: "Facilitator for CBOR payments; default the `facilitator` above." }),
  /**
   * Humanity-claim issuers trusted by routes with `acceptsHumanityGate`: public keys in hex (Ed25519: 64
   * characters; ML-DSA-65: 3904).
   */
  humanityIssuers: humanityIssuersSchema.optional().meta({
    description:
      "Humanity-claim issuers trusted by routes with `acceptsHumanityGate`: public keys in hex (Ed25519: 64 characters; ML-DSA-65: 3904).",
  }),
  /** Default lifetime of a CBOR offer, in seconds (deadlines fall on whole minutes). Default 300. */
  deadlineSeconds: z.number().int().min(60).default(CBOR_DEFAULTS.deadlineSeconds).meta({
    description:
      "Default lifetime of a CBOR offer, in seconds (deadlines fall on whole minutes). Default 300.",
  }),
  /** Signer backends CBOR routes accept unless a route names its own. Default ServiceAuthSigner and LayerTwoSigner. */
  signers: acceptedSignersSchema.optional().meta({
    description:
      "Signer backends CBOR routes accept unless a route names its own. Default ServiceAuthSigner and LayerTwoSigner.",
  }),
  /** The LayerTwoSigner (Starknet): `{ chainId?, rpcUrl?, timeoutMs?, cacheTtlMs?, maxEntries? }`. */
  layerTwo: layerTwoSignerSettingsSchema.optional().meta({
    description:
      "The LayerTwoSigner (Starknet): `{ chainId?, rpcUrl?, timeoutMs?, cacheTtlMs?, maxEntries? }`.",
  }),
  /**
   * Clock difference tolerated when checking a deadline or a delegation grant's expiry, in seconds. Default
   * 30.
   */
  skewSeconds: z.number().int().min(0).max(300).default(CBOR_DEFAULTS.skewSeconds).meta({
    description:
      "Clock difference tolerated when checking a deadline or a delegation grant's expiry, in seconds. Default 30.",
  }),
  /**
   * Payments through a `delegation_chain` (an agent paying on a root key's behalf, within each grant's scope,
   * expiry and cap): `{ maxChainLength?, maxChainBytes? }`, or `false` to refuse every chain. On by default;
   * needs a ledger that counts grants (the built-in ones do).
   */
  delegation: z
    .union([z.literal(false), delegationSettingsSchema])
    .default({
      maxChainLength: DELEGATION_DEFAULTS.maxChainLength,
      maxChainBytes: DELEGATION_DEFAULTS.maxChainBytes,
    })
    .meta({
      description:
        "Payments through a `delegation_chain` (an agent paying on a root key's behalf, within each grant's scope, expiry and cap): `{ maxChainLength?, maxChainBytes? }`, or `false` to refuse every chain. On by default; needs a ledger that counts grants (the built-in ones do).",
    }),
});
export type CborSettings = z.output<typeof cborSettingsSchema>;
