/** Where a request keeps the `url` the gateway normalised: a symbol property is cheaper than a WeakMap entry per request. */
const NORMALIZED_URL = Symbol("x402.normalizedUrl");

type Marked = { url: string; [NORMALIZED_URL]?: string };

/** Remember that `req.url`, as it is now, holds the normalised path, so `x402()` does not normalise it again. */
export function markNormalized(req: { url: string }): void {
  (req as Marked)[NORMALIZED_URL] = req.url;
}

/** Whether `req.url` is still the one marked normalised (a mounted app or a rewrite changes it). */
export function isNormalized(req: { url?: string | undefined }): boolean {
  return req.url !== undefined && (req as Partial<Marked>)[NORMALIZED_URL] === req.url;
}
