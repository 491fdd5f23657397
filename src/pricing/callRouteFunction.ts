import { GatewayError } from "../protocol/errors.js";

/** How long a route function (`price`, `payTo`, a response body) may take before the request is refused. */
export const ROUTE_FUNCTION_TIMEOUT_MS = 10_000;

/**
 * Calls one of a route's functions: what it throws, or its not answering within
 * {@link ROUTE_FUNCTION_TIMEOUT_MS}, is `route_function_failed` (500), never retried or passed on, so a
 * function that hangs cannot hold a request (and its connection) for ever.
 */
export async function callRouteFunction<A extends unknown[], T>(
  fn: (...args: A) => T | Promise<T>,
  args: A,
  what: string,
  details: Record<string, string>,
  timeoutMs = ROUTE_FUNCTION_TIMEOUT_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new GatewayError("route_function_failed", `${what} did not answer within ${timeoutMs} ms`, {
            details: { ...details, timedOut: "true" },
          }),
        ),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([Promise.resolve().then(() => fn(...args)), timedOut]);
  } catch (error) {
    if (error instanceof GatewayError && error.code === "route_function_failed") throw error;
    throw new GatewayError("route_function_failed", `${what} threw`, { cause: error, details });
  } finally {
    clearTimeout(timer);
  }
}
