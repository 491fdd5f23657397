import { isLoopbackHost } from "./isLoopbackHost.js";

/**
 * True for `https://` URLs, and for `http://` ones whose host is loopback (docs/hardening.md: outbound URLs).
 */
export function isHttpsOrLoopbackUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}
