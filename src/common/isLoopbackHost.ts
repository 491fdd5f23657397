import { isIP } from "node:net";

/** Answers for the addresses seen last: a request asks for its socket's and its client's (regex work). */
const seen = new Map<string, boolean>();
const SEEN_MAX = 1024;

/** `localhost`, `127.0.0.0/8` and `::1` (with or without URL brackets). */
export function isLoopbackHost(host: string): boolean {
  let answer = seen.get(host);
  if (answer === undefined) {
    answer = readLoopback(host);
    if (seen.size >= SEEN_MAX) seen.clear();
    seen.set(host, answer);
  }
  return answer;
}

function readLoopback(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || /^::ffff:127\./i.test(bare);
  return false;
}
