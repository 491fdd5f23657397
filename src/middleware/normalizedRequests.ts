/** Requests whose `url` the gateway has already normalised, so `x402()` does not normalise them again. */
const normalizedUrls = new WeakMap<object, string>();

/** Remember that `req.url`, as it is now, holds the normalised path. */
export function markNormalized(req: { url: string }): void {
  normalizedUrls.set(req, req.url);
}

/** Whether `req.url` is still the one marked normalised (a mounted app or a rewrite changes it). */
export function isNormalized(req: { url?: string | undefined }): boolean {
  return normalizedUrls.get(req) === req.url;
}
