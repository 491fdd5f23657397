import { BaseError } from "../common/BaseError.js";
/** Most redirects followed before paying. */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The redirects that keep the method and the body (RFC 9110 §15.4.8, §15.4.9). */
const KEEPING_METHOD = new Set([307, 308]);

/** A redirect that was not followed: to another origin, one too many, or one that would change the method. */
export class RedirectRefused extends BaseError {
  constructor(
    readonly location: string,
    message: string,
  ) {
    super("redirect_refused", message, { details: { location }, docsPath: "docs/mcp-payer.md" });
  }
}

/** What the tool sends: the method, and for a method with a body, the body and its content type. */
export interface ResourceRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The body, as UTF-8 text (absent: no body). */
  body?: string | undefined;
  /** The body's `Content-Type` (absent: none sent). */
  contentType?: string | undefined;
}

/** The fetch init of `request`, plus `headers` (the payment, when there is one). */
export function requestInit(
  request: ResourceRequest,
  signal: AbortSignal,
  headers: Record<string, string> = {},
): RequestInit {
  return {
    method: request.method,
    headers: {
      ...(request.contentType === undefined ? {} : { "content-type": request.contentType }),
      ...headers,
    },
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: "manual",
    signal,
  };
}

/**
 * Sends `request` to `url` without a payment, following redirects only within its origin (at most
 * {@link MAX_REDIRECTS}); a request other than GET follows only 307 and 308, which keep its method and
 * body. The answer and the URL that gave it, where a payment would be sent. Throws
 * {@link RedirectRefused} for a redirect elsewhere, or one that would turn the request into a GET.
 */
export async function fetchSameOrigin(
  fetchImpl: typeof fetch,
  url: string,
  request: ResourceRequest,
  signal: AbortSignal,
): Promise<{ response: Response; url: string }> {
  let current = new URL(url);
  for (let hops = 0; ; hops++) {
    const response = await fetchImpl(current, requestInit(request, signal));
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
    if (request.method !== "GET" && !KEEPING_METHOD.has(response.status))
      throw new RedirectRefused(
        next.href,
        `${current.origin} answered ${request.method} with ${response.status}, which would turn it into a GET; not followed`,
      );
    if (hops === MAX_REDIRECTS)
      throw new RedirectRefused(next.href, `more than ${MAX_REDIRECTS} redirects; not followed`);
    current = next;
  }
}
