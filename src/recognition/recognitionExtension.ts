import { minimalFelt, selectorOf, starknetEndpoint } from "../starknet/StarknetRpc.js";
import { EST_OUVERTE } from "./StarknetRecognizer.js";

/** Name of the offer extension that says where a client can run the recognition check itself. */
export const STARKNET_RECOGNITION = "starknet-recognition";

/** What the `starknet-recognition` extension says: where and how to run the recognition check. */
export interface RecognitionInfo {
  /** The Starknet JSON-RPC v0.10 endpoint (`{rpcUrl}/rpc/v0_10`) to POST the call to. */
  rpcUrl: string;
  /** `starknet_call`, params positional: `[{ contract_address, entry_point_selector, calldata }, blockId]`. */
  method: "starknet_call";
  contractAddress: string;
  entryPoint: typeof EST_OUVERTE;
  entryPointSelector: string;
  /** What goes in `calldata`: the payer's EVM address as one felt. */
  calldata: ["payer"];
  blockId: "latest";
  /** `0x1`: recognized (sign in with `sign-in-with-x` instead of paying); `0x0`: not (yet). */
  recognizedResult: "0x1";
}

/**
 * The `starknet-recognition` extension of a 402 offer, in the `{ info, schema }` form every x402 V2
 * extension value has (§5.1.2): `schema` is the JSON Schema `info` conforms to (docs/recognition.md,
 * "The offer names where to check: the `starknet-recognition` extension").
 */
export interface RecognitionExtension {
  info: RecognitionInfo;
  schema: Record<string, unknown>;
}

const FELT = { type: "string", pattern: "^0x(0|[1-9a-f][0-9a-f]{0,62})$" };

/** The JSON Schema of {@link RecognitionInfo}: one constant object, built once. */
const RECOGNITION_INFO_SCHEMA: Record<string, unknown> = Object.freeze({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    rpcUrl: { type: "string", pattern: "^https?://" },
    method: { const: "starknet_call" },
    contractAddress: FELT,
    entryPoint: { const: EST_OUVERTE },
    entryPointSelector: FELT,
    calldata: { type: "array", prefixItems: [{ const: "payer" }], minItems: 1, maxItems: 1 },
    blockId: { const: "latest" },
    recognizedResult: { const: "0x1" },
  },
  required: [
    "rpcUrl",
    "method",
    "contractAddress",
    "entryPoint",
    "entryPointSelector",
    "calldata",
    "blockId",
    "recognizedResult",
  ],
  additionalProperties: false,
});

/**
 * The extension naming the endpoint and the resource contract (the seed: "for mainnet, the endpoint
 * and the resource contract are named by the offer"), from the node URL clients may use: the
 * gateway's own, or a public one when the gateway's must stay private.
 */
export function recognitionExtension(
  publicRpcUrl: string,
  contract: string,
): { [STARKNET_RECOGNITION]: RecognitionExtension } {
  return {
    [STARKNET_RECOGNITION]: {
      info: {
        rpcUrl: starknetEndpoint(publicRpcUrl),
        method: "starknet_call",
        contractAddress: minimalFelt(contract),
        entryPoint: EST_OUVERTE,
        entryPointSelector: selectorOf(EST_OUVERTE),
        calldata: ["payer"],
        blockId: "latest",
        recognizedResult: "0x1",
      },
      schema: RECOGNITION_INFO_SCHEMA,
    },
  };
}
