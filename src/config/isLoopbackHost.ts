import { isIP } from "node:net";

/** `localhost`, `127.0.0.0/8` and `::1` (with or without URL brackets). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1" || /^::ffff:127\./i.test(bare);
  return false;
}
