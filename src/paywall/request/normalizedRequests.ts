/** Where a request keeps the `url` the gateway normalised: a symbol property is cheaper than a WeakMap entry per request. */
const NORMALIZED_URL = Symbol("x402.normalizedUrl");
/** …and the path as the client wrote it, for the readings other servers make of it. */
const RAW_PATH = Symbol("x402.rawPath");

type Marked = { url: string; [NORMALIZED_URL]?: string; [RAW_PATH]?: string };

/** Remember that `req.url`, as it is now, holds the normalised path of `rawPath`, so `x402()` does not normalise it again. */
export function markNormalized(req: { url: string }, rawPath: string): void {
  (req as Marked)[NORMALIZED_URL] = req.url;
  (req as Marked)[RAW_PATH] = rawPath;
}

/** Whether `req.url` is still the one marked normalised (a mounted app or a rewrite changes it). */
export function isNormalized(req: { url?: string | undefined }): boolean {
  return req.url !== undefined && (req as Partial<Marked>)[NORMALIZED_URL] === req.url;
}

/** The path as the client wrote it, before the gateway normalised it. */
export function rawPathOf(req: object): string | undefined {
  return (req as Partial<Marked>)[RAW_PATH];
}
