import type { GatewayConfig } from "../../config/gatewayConfigSchema.js";
import type { DevAccount } from "../../dev/devAccounts.js";
import type { RunningStarknetStandIn } from "../../dev/startStarknetStandIn.js";
import { toFelt } from "../../recognition/toFelt.js";
import { starknetCallBody } from "../../starknet/StarknetRpc.js";

/** A priced route recognized payers may sign in to, with the contract it asks. */
export interface RecognizedRoute {
  key: string;
  contract: string;
  rpcUrl: string;
}

/** The routes with recognition on (their own settings, or the top-level default), in config order. */
export function recognizedRoutes(config: Pick<GatewayConfig, "recognition" | "routes">): RecognizedRoute[] {
  return Object.entries(config.routes).flatMap(([key, route]) => {
    const settings = route.recognition ?? config.recognition;
    return typeof settings === "object"
      ? [{ key, contract: toFelt(settings.contract), rpcUrl: settings.rpcUrl }]
      : [];
  });
}

export interface RecognitionLoopOptions {
  config: Pick<GatewayConfig, "recognition" | "routes" | "admin">;
  gatewayUrl: string;
  payer: DevAccount;
  layer2: Pick<RunningStarknetStandIn, "url" | "rpcUrl" | "contract">;
  recordDelayMs: number;
  adminToken: string;
  /** The CBOR facilitator and the layer-2 account `npm run pay -- --cbor --signer starknet` pays as. */
  cbor?: { facilitatorUrl: string; layerTwoAccount: string } | undefined;
}

/**
 * The banner's walk through the seed's loop on the first recognized GET route: pay once, ask the
 * registry (`0x0`, then `0x1`), sign in without paying, and revoke (what a refund does). No lines
 * when no GET route has recognition on the local stand-in.
 */
export function formatRecognitionLoop(options: RecognitionLoopOptions): string[] {
  const { gatewayUrl, payer, layer2, recordDelayMs, adminToken } = options;
  const route = recognizedRoutes(options.config).find(
    (candidate) => candidate.key.startsWith("GET ") && candidate.contract === layer2.contract,
  );
  if (route === undefined) return [];
  const url = `${gatewayUrl}${route.key.slice("GET ".length)}`;
  const key = `EVM_PRIVATE_KEY=${payer.privateKey}`;
  const seconds = recordDelayMs / 1000;
  const payload = { payer: payer.address, reason: "refund" };
  return [
    `The seed's loop on ${route.key} (recognition on): pay once; the gateway records the payer in this route's`,
    `registry on the layer-2 stand-in ${seconds} s after the payment (only for a payment of this route, to`,
    `this payee, of at least its price); from then on it signs in instead of paying.`,
    "  1. Pay once:",
    `     ${key} npm run pay -- ${url}`,
    `  2. Ask the registry: 0x0 right after paying, 0x1 about ${seconds} s later (repeat it):`,
    `     npm run -s x402-gateway -- recognize ${payer.address} --rpc ${layer2.rpcUrl} --contract ${layer2.contract}`,
    `     curl -s -X POST ${layer2.rpcUrl} -d '${starknetCallBody(1, layer2.contract, "est_ouverte", [payer.address])}'`,
    "  3. Sign in without paying (SIGN-IN-WITH-X with the same key; no PAYMENT-SIGNATURE is sent):",
    `     ${key} npm run pay -- --sign-in ${url}`,
    ...cborLines(options, route.key, url),
    "  A refund drops the payer from recognition at once: revoke it at the admin endpoint (fresh token):",
    `     curl -s -X POST ${gatewayUrl}${options.config.admin.path}/revocations -H 'authorization: Bearer ${adminToken}' -H 'content-type: application/json' -d '${JSON.stringify(payload)}'`,
    "",
  ];
}

/**
 * The loop in application/x402+cbor, when the route has a CBOR offer: a Starknet-signed intent names the
 * layer-2 account, which is recorded as itself (asked with the same recognize command).
 */
function cborLines(options: RecognitionLoopOptions, key: string, url: string): string[] {
  const route = options.config.routes[key];
  if (options.cbor === undefined || route === undefined || route.cbor === undefined) return [];
  const { facilitatorUrl, layerTwoAccount } = options.cbor;
  const { layer2 } = options;
  return [
    "  The same in application/x402+cbor, signed by the layer-2 dev account (recorded as that account):",
    `     npm run pay -- --cbor ${url} --signer starknet --facilitator ${facilitatorUrl}`,
    `     npm run -s x402-gateway -- recognize ${layerTwoAccount} --rpc ${layer2.rpcUrl} --contract ${layer2.contract}`,
  ];
}
