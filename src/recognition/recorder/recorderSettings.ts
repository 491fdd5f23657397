import { z } from "zod/v4";

const felt = z.string().regex(/^0x[0-9a-fA-F]{1,64}$/, "expected a felt: 0x and 1 to 64 hex digits");
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "expected an environment variable's name");
const bound = z
  .strictObject({
    max_amount: felt.meta({ description: "Most units of the resource the transaction may use (felt)." }),
    max_price_per_unit: felt.meta({ description: "Most it pays per unit, in fri (felt)." }),
  })
  .meta({ description: "One resource's bound in the v3 transaction." });

/**
 * The payer recorder in a gateway's config: who writes recognition to the chain (an account of the
 * resource owner's), with which key, where its queue lives and how hard it tries.
 */
export const recorderSettingsSchema = z
  .strictObject({
    rpcUrl: z.url().optional().meta({
      description:
        "Starknet JSON-RPC v0.10 node the recordings are sent to (`https://`, or `http://` on loopback). Default: the top-level `recognition.rpcUrl`; every recognized route must read the same node.",
    }),
    account: felt.meta({ description: "Address of the account contract that sends the recordings (felt)." }),
    privateKeyEnv: envName.optional().meta({
      description:
        "Name of the environment variable holding the account's Stark private key (felt hex). Or `keystore`.",
    }),
    keystore: z
      .strictObject({
        file: z
          .string()
          .min(1)
          .meta({ description: "A v3 keystore (starkli's format), owner-only (chmod 600)." }),
        passwordFile: z.string().min(1).meta({ description: "The file holding its password, owner-only." }),
      })
      .optional()
      .meta({ description: "The account's key in a v3 keystore file instead of `privateKeyEnv`." }),
    entryPoint: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "expected a Cairo entry point name")
      .default("record_payer")
      .meta({
        description:
          "The registry contracts' recording entry point, `(payer: felt252)`. Default `record_payer`.",
      }),
    queue: z
      .union([
        z.strictObject({
          file: z.string().min(1).meta({ description: "SQLite file of the queue (one gateway)." }),
        }),
        z.literal("ledger"),
      ])
      .meta({
        description:
          "Where recordings wait: `{ file }` (SQLite, one gateway) or `ledger` (the Redis ledger's server, shared by every gateway; one writes at a time).",
      }),
    batchSize: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(20)
      .meta({ description: "Most recordings in one transaction. Default 20." }),
    intervalMs: z
      .number()
      .int()
      .min(10)
      .max(600_000)
      .default(1_000)
      .meta({ description: "How often the queue is looked at, in ms. Default 1000." }),
    backoffMs: z.number().int().min(10).max(600_000).default(1_000).meta({
      description: "First retry delay after a failure, doubled each failure in a row. Default 1000.",
    }),
    maxBackoffMs: z
      .number()
      .int()
      .min(10)
      .max(3_600_000)
      .default(60_000)
      .meta({ description: "Longest retry delay, in ms. Default 60000." }),
    unhealthyAfterMs: z
      .number()
      .int()
      .min(0)
      .default(60_000)
      .meta({ description: "Failing this long shows in `/readyz` and the metrics. Default 60000." }),
    timeoutMs: z
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(10_000)
      .meta({ description: "Timeout of one RPC call, in ms. Default 10000." }),
    resourceBounds: z.strictObject({ l1_gas: bound, l1_data_gas: bound, l2_gas: bound }).optional().meta({
      description:
        "The v3 transactions' resource bounds (felts); defaults cover a few calls on Starknet today.",
    }),
  })
  .refine((settings) => (settings.privateKeyEnv === undefined) !== (settings.keystore === undefined), {
    message: "set exactly one of privateKeyEnv and keystore",
  });

export type RecorderSettings = z.infer<typeof recorderSettingsSchema>;
