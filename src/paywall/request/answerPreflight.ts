import type { ResponseWriter } from "../responses/ResponsePort.js";

/**
 * `204` with `Allow`, for an `OPTIONS` on a priced path that the paywall answers itself rather than pass
 * on: a server that ignores the method would serve the priced resource for free.
 */
export function answerPreflight(res: ResponseWriter, allow: readonly string[]): void {
  res.statusCode = 204;
  res.setHeader("Allow", allow.join(", "));
  res.end();
}
