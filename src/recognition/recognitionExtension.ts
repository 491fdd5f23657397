import { minimalFelt, selectorOf, starknetEndpoint } from "../starknet/StarknetRpc.js";
import { EST_OUVERTE } from "./StarknetRecognizer.js";

/** Name of the offer extension that says where a client can run the recognition check itself. */
export const STARKNET_RECOGNITION = "starknet-recognition";

/**
 * The `starknet-recognition` extension of a 402 offer (docs/recognition.md, "The offer names where to
 * check: the `starknet-recognition` extension").
 */
export interface RecognitionExtension {
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
      rpcUrl: starknetEndpoint(publicRpcUrl),
      method: "starknet_call",
      contractAddress: minimalFelt(contract),
      entryPoint: EST_OUVERTE,
      entryPointSelector: selectorOf(EST_OUVERTE),
      calldata: ["payer"],
      blockId: "latest",
      recognizedResult: "0x1",
    },
  };
}
