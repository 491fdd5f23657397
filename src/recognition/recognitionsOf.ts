import type { RecognitionSettings } from "./recognitionSettings.js";

/**
 * Every recognition setting of a paywall: the default and each route's own (`false` and unset left out).
 * The one reading of "which recognitions are configured", for `x402()` options and the gateway config.
 */
export function recognitionsOf(settings: {
  recognition?: RecognitionSettings | undefined;
  routes: Record<string, { recognition?: RecognitionSettings | false | undefined }>;
}): RecognitionSettings[] {
  return [settings.recognition, ...Object.values(settings.routes).map((route) => route.recognition)].filter(
    (recognition): recognition is RecognitionSettings => typeof recognition === "object",
  );
}
