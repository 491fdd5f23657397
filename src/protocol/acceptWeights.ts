/**
 * The media ranges of an `Accept` header with their q-values (a range listed twice keeps its highest).
 * A q-value that is not a valid HTTP qvalue (`0` to `1`, at most three decimals) counts as 0. Never throws.
 */
export function acceptWeights(accept: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  if (accept === undefined) return weights;
  for (const part of accept.split(",")) {
    const [range, ...params] = part.split(";");
    const mediaRange = range?.trim().toLowerCase();
    if (!mediaRange) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split("=").map((text) => text.trim().toLowerCase());
      if (name === "q") q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? "") ? Number(value) : 0;
    }
    weights.set(mediaRange, Math.max(weights.get(mediaRange) ?? 0, q));
  }
  return weights;
}

/** How much a client accepts `mediaType`: its own range, else `type/*`, else `*\/*`, else 0 (RFC 9110 §12.5.1). */
export function weightOf(weights: ReadonlyMap<string, number>, mediaType: string): number {
  const type = mediaType.slice(0, mediaType.indexOf("/"));
  return weights.get(mediaType) ?? weights.get(`${type}/*`) ?? weights.get("*/*") ?? 0;
}
