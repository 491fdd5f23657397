import type { IncomingHttpHeaders } from "node:http";

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the legacy proxy ones. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "upgrade",
];

/** What frames or routes a message: never dropped, whatever `Connection` lists. */
export const FRAMING_HEADERS = ["content-length", "transfer-encoding", "host"];

/** The names a message's `Connection` header lists, lower-cased. */
export function connectionTokens(headers: IncomingHttpHeaders): string[] {
  return String(headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
}

/**
 * Hop-by-hop headers of a message: the fixed list and every name its `Connection` header lists,
 * except the framing headers (a request naming them is refused before it gets here).
 */
export function hopByHopHeaders(headers: IncomingHttpHeaders): string[] {
  const listed = connectionTokens(headers).filter((name) => !FRAMING_HEADERS.includes(name));
  return [...HOP_BY_HOP, ...listed];
}
