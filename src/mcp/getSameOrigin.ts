import { BaseError } from "../common/BaseError.js";
/** Most redirects followed before paying. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A redirect that was not followed: to another origin, or one too many. */
export class RedirectRefused extends BaseError {
  constructor(
    readonly location: string,
    message: string,
  ) {
    super("redirect_refused", message, { details: { location }, docsPath: "docs/mcp-payer.md" });
  }
}

/**
 * GETs `url` without a payment, following redirects only within its origin (at most
 * {@link MAX_REDIRECTS}): the answer and the URL that gave it, where a payment would be sent.
 * Throws {@link RedirectRefused} for a redirect elsewhere.
 */
export async function getSameOrigin(
  fetchImpl: typeof fetch,
  url: string,
  signal: AbortSignal,
): Promise<{ response: Response; url: string }> {
  let current = new URL(url);
  for (let hops = 0; ; hops++) {
    const response = await fetchImpl(current, { redirect: "manual", signal });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { response, url: current.href };
    await response.body?.cancel();
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectRefused(
        location,
        `${current.origin} redirected to an invalid location; not followed`,
      );
    }
    if (next.origin !== current.origin)
      throw new RedirectRefused(
        next.href,
        `${current.origin} redirected to another origin (${next.origin}); not followed`,
      );
    if (hops === MAX_REDIRECTS)
      throw new RedirectRefused(next.href, `more than ${MAX_REDIRECTS} redirects; not followed`);
    current = next;
  }
}
