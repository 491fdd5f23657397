import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { RecognitionError } from "../recognition/RecognitionError.js";
import { RECOGNITION_DEFAULTS } from "../recognition/recognitionDefaults.js";
import { StarknetRecognizer } from "../recognition/StarknetRecognizer.js";
import { StarknetRpcFailureError } from "../starknet/StarknetRpcFailureError.js";
import type { ReadinessCheck } from "./checkReadiness.js";

/** The payer `/readyz` asks about: the zero address (any answer will do; only the call's success counts). */
const NOBODY = "0x0000000000000000000000000000000000000000";

/**
 * The `recognition` checks of `/readyz`, one per distinct node and contract configured (the top-level
 * `recognition` is `recognition`, a route's own is `recognition <route key>`): the same `est_ouverte` call
 * a sign-in makes, within the recognition's `timeoutMs`. None without recognition.
 */
export function recognitionChecks(config: GatewayConfig, fetchImpl: typeof fetch): Promise<ReadinessCheck>[] {
  const named = [
    ...(config.recognition ? [{ name: "recognition", settings: config.recognition }] : []),
    ...Object.entries(config.routes).flatMap(([key, route]) =>
      typeof route.recognition === "object"
        ? [{ name: `recognition ${key}`, settings: route.recognition }]
        : [],
    ),
  ];
  const seen = new Set<string>();
  const distinct = named.filter(({ settings }) => {
    const where = `${settings.rpcUrl} ${settings.contract.toLowerCase()}`;
    if (seen.has(where)) return false;
    seen.add(where);
    return true;
  });
  return distinct.map(async ({ name, settings }) => {
    const url = settings.rpcUrl;
    try {
      const recognizer = new StarknetRecognizer({
        rpcUrl: settings.rpcUrl,
        contract: settings.contract,
        timeoutMs: settings.timeoutMs ?? RECOGNITION_DEFAULTS.timeoutMs,
        fetch: fetchImpl,
      });
      await recognizer.estOuverte(NOBODY);
      return { name, ok: true, url };
    } catch (error) {
      return { name, ok: false, url, error: (error as Error).message, reason: recognitionReason(error) };
    }
  });
}

/** A failed call in a word anyone may see: `unreachable`, `timeout`, `status_<n>`, or the failure's kind. */
function recognitionReason(error: unknown): string {
  if (!(error instanceof RecognitionError)) return "error";
  const cause = error.cause;
  if (cause instanceof StarknetRpcFailureError) {
    if (cause.kind === "unreachable" || cause.kind === "timeout") return cause.kind;
    if (cause.kind === "http") return `status_${cause.details.status ?? 0}`;
  }
  return error.kind;
}
