import type { RecognitionSettings } from "../recognition/recognitionSettings.js";
import type { GatewayConfig } from "./gatewayConfigSchema.js";

/** Every recognition setting of a config: the default and each route's own. */
export function recognitionsOf(config: Pick<GatewayConfig, "recognition" | "routes">): RecognitionSettings[] {
  return [config.recognition, ...Object.values(config.routes).map((route) => route.recognition)].filter(
    (recognition): recognition is RecognitionSettings => typeof recognition === "object",
  );
}
