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

/** Hop-by-hop headers of a message: the fixed list and every name its `Connection` header lists. */
export function hopByHopHeaders(headers: IncomingHttpHeaders): string[] {
  const listed = String(headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  return [...HOP_BY_HOP, ...listed];
}
