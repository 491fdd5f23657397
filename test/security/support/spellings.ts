import fc from "fast-check";

/** The priced resources of the corpus, and a literal `:id` for the cheap route. */
const RESOURCES: Array<{ method: string; segments: string[] }> = [
  { method: "GET", segments: ["api", "apy"] },
  { method: "POST", segments: ["api", "stake"] },
  { method: "GET", segments: ["api", "r", "premium"] },
];

const hex = (code: number) => `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
const utf8Escapes = (char: string) => [...Buffer.from(char, "utf8")].map(hex).join("");

/** One way a segment can be re-spelled so that a lenient server still reads the original. */
const segmentTransforms: Array<fc.Arbitrary<(segment: string) => string>> = [
  fc.constantFrom(";x=1", ";jsessionid=abc", ";").map((suffix) => (s: string) => `${s}${suffix}`),
  fc
    .constantFrom(".", "..", "%2e", "%20", "%2520", "%20.", "%E3%80%80")
    .map((suffix) => (s: string) => `${s}${suffix}`),
  fc.nat(20).map((i) => (s: string) => {
    const at = i % s.length;
    return `${s.slice(0, at)}${hex(s.charCodeAt(at))}${s.slice(at + 1)}`;
  }),
  fc.nat(20).map((i) => (s: string) => {
    const at = i % s.length;
    // Double encoding: `a` → `%2561`.
    return `${s.slice(0, at)}%25${s.charCodeAt(at).toString(16)}${s.slice(at + 1)}`;
  }),
  fc.nat(20).map((i) => (s: string) => {
    const at = i % s.length;
    const char = s[at] as string;
    if (!/[a-z]/.test(char)) return s;
    // Fullwidth form, NFKC-equivalent to the ASCII letter.
    return `${s.slice(0, at)}${utf8Escapes(String.fromCharCode(char.charCodeAt(0) + 0xfee0))}${s.slice(at + 1)}`;
  }),
  fc.constant((s: string) => s.toUpperCase()),
  // Whitespace Spring's trimTokens drops around a segment (issue 20, item 9).
  fc.tuple(fc.constantFrom("%09", "%0A", "%0D%0A", "%0d", "%20%09"), fc.boolean()).map(
    ([space, before]) =>
      (s: string) =>
        before ? `${space}${s}` : `${s}${space}`,
  ),
  // An overlong UTF-8 dot ending a segment (dropped as a trailing dot once decoded).
  fc.constantFrom("%c0%ae", "%C0%AE").map((suffix) => (s: string) => `${s}${suffix}`),
];

/** Spellings of a priced path combining several transformations, a separator, a cut (format suffix…), and an optional `#`/`?` tail. */
export function spellings(): fc.Arbitrary<{ method: string; target: string }> {
  return fc
    .record({
      resource: fc.constantFrom(...RESOURCES),
      edits: fc.array(fc.tuple(fc.nat(5), fc.oneof(...segmentTransforms)), { minLength: 1, maxLength: 4 }),
      // What ends the path for a lenient reader (raw, decoded, double-decoded), then a real query or fragment.
      cut: fc.constantFrom(
        "",
        "",
        "%00",
        "%2500",
        "%23x",
        "%3Fx",
        "%2523",
        "%253F",
        "%00.json",
        ".json",
        ".xml",
      ),
      // Overlong UTF-8 `/` between segments (issue 20, item 9).
      separator: fc.constantFrom("/", "/", "/", "%c0%af", "%C0%AF", "%e0%80%af"),
      tail: fc.constantFrom("", "#", "#frag", "?q=1", "?q=1#f"),
    })
    .map(({ resource, edits, cut, separator, tail }) => {
      const segments = [...resource.segments];
      for (const [index, edit] of edits) {
        const at = index % segments.length;
        segments[at] = edit(segments[at] as string);
      }
      return { method: resource.method, target: `/${segments.join(separator)}${cut}${tail}` };
    });
}
