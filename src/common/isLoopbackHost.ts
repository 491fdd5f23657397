/** Answers for the addresses seen last: a request asks for its socket's and its client's (regex work). */
const seen = new Map<string, boolean>();
const SEEN_MAX = 1024;

/** A dotted-quad IPv4 address, each part 0–255 without leading zeros (what `node:net`'s `isIP` takes for 4). */
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
/** `::ffff:127.x.y.z`, the IPv4-mapped form of a loopback address. */
const IPV4_MAPPED_LOOPBACK =
  /^::ffff:127\.(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){2}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/i;

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
  if (IPV4.test(bare)) return bare.startsWith("127.");
  return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || IPV4_MAPPED_LOOPBACK.test(bare);
}
