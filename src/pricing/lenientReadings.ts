import { bytesOfCheckedHex } from "../common/bytes.js";
/**
 * The ways a lenient upstream (Tomcat, Spring, IIS, a proxying app…) may read a request path that the
 * paywall reads strictly. Each transformation is one such reading; they combine in any order.
 */
const TRANSFORMS: ReadonlyArray<(path: string) => string> = [
  // Matrix parameters: `/a;x=1/b;y` → `/a/b` (Tomcat, Spring, Jetty).
  (path) => path.replace(/;[^/]*/g, ""),
  // One more round of percent-decoding (double-decoding servers, and decoding before routing).
  decodeOnce,
  // A decoded `#`, `?` or NUL ends the path (C strings, servers that re-parse the decoded URL).
  (path) => path.replace(/[#?\0][\s\S]*$/, ""),
  // Windows file names: trailing dots and spaces dropped per segment (IIS); dot segments stay.
  (path) => path.replace(/([^/.])[. ]+(?=\/|$)/g, "$1"),
  // Compatibility forms: fullwidth `ａ` → `a`, ligatures, etc.
  (path) => path.normalize("NFKC"),
  // Backslash as a separator.
  (path) => path.replace(/\\/g, "/"),
  // Whitespace around a segment dropped: a decoded tab, CR or LF (Spring's trimTokens).
  (path) => path.replace(/[^/]+/g, (segment) => segment.trim()),
  // A format suffix on the last segment: `/api/secret.json` is `/api/secret` (Rails `(.:format)`)…
  (path) => path.replace(/([^/.])\.[^/.]*$/, "$1"),
  // …and everything from its first dot (Spring suffix matching: `/api/secret.*` takes `secret..a.b`).
  (path) => path.replace(/([^/.])\.[^/]*$/, "$1"),
  // Overlong UTF-8 escapes read as the ASCII they spell (`%c0%af` → `/`, `%c0%ae` → `.`): old decoders.
  decodeOverlong,
  // A leading `//` (or more, or with `\\`) names a host (WHATWG `new URL(target, base)`): the path starts after it.
  (path) => path.replace(/^[/\\]{2,}[^/\\]*/, "") || "/",
];

/** Characters without which no transformation above can change a path (matching already ignores case); a dot in the last segment is a format suffix. */
const SUSPICIOUS = /[%;\\\s\0#?]|[. ](?:\/|$)|\.[^/]*$|[^\x20-\x7e]|^\/\//;

/** More readings than this: the path is treated as hostile. */
export const MAX_READINGS = 256;

/**
 * Every path a lenient server could read from `path`, `path` itself included: the closure of the
 * transformations above. `undefined` when there are more than {@link MAX_READINGS} (the caller refuses).
 * Pure and total.
 */
export function lenientReadings(path: string): ReadonlySet<string> | undefined {
  const readings = new Set<string>([path]);
  if (!SUSPICIOUS.test(path)) return readings;
  const queue = [path];
  while (queue.length > 0) {
    const current = queue.pop() as string;
    for (const transform of TRANSFORMS) {
      const next = transform(current);
      if (readings.has(next)) continue;
      if (readings.size >= MAX_READINGS) return undefined;
      readings.add(next);
      queue.push(next);
    }
  }
  return readings;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decode every `%XX` escape: valid UTF-8 sequences become characters; a byte that is not part of one
 * stays escaped, so that a later round can still complete it (`%25EF%BD%81` → `%EF%BD%81` → `ａ`).
 */
function decodeOnce(path: string): string {
  if (!path.includes("%")) return path;
  return path.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = bytesOfCheckedHex(run.replace(/%/g, ""));
    let out = "";
    for (let i = 0; i < bytes.length;) {
      const lead = bytes[i] as number;
      const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 0;
      if (length > 0 && i + length <= bytes.length) {
        try {
          out += utf8.decode(bytes.subarray(i, i + length));
          i += length;
          continue;
        } catch {
          // Not a valid sequence: keep the byte escaped.
        }
      }
      out += `%${lead.toString(16).toUpperCase().padStart(2, "0")}`;
      i += 1;
    }
    return out;
  });
}

/** `%C0%AF`-style two-byte and `%E0%80%AF`-style three-byte overlong escapes, decoded to their ASCII character. */
function decodeOverlong(path: string): string {
  if (!/%(?:c[01]|e0)/i.test(path)) return path;
  return path
    .replace(/%(c[01])%([89ab][0-9a-f])/gi, (_, lead: string, tail: string) =>
      String.fromCharCode(((parseInt(lead, 16) & 0x1f) << 6) | (parseInt(tail, 16) & 0x3f)),
    )
    .replace(/%e0%([89][0-9a-f])%([89ab][0-9a-f])/gi, (_, middle: string, tail: string) =>
      String.fromCharCode(((parseInt(middle, 16) & 0x3f) << 6) | (parseInt(tail, 16) & 0x3f)),
    );
}
