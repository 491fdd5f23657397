import fc from "fast-check";
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { unquotedFlowReference } from "../../src/config/unquotedFlowReference.js";

/** Text before the `|` marker; the marker is where the finding should point (none: no finding). */
const CORPUS: Array<[string, string]> = [
  ["an unquoted reference in a flow mapping", "a: { b: |${X} }"],
  ["in a flow sequence", "a: [1, |${X}]"],
  ["after text in the same value", "h: { Authorization: Bearer |${TOKEN} }"],
  ["in a nested flow mapping", "a: { b: { c: |${X} } }"],
  ["a flow mapping spanning lines", "a: {\n  b: 1,\n  c: |${X}\n}"],
  ["the first of two", "a: { b: |${X}, c: ${Y} }"],
  ["in block style", "a: ${X}"],
  ["double-quoted", 'a: { b: "${X}" }'],
  ["single-quoted", "a: { b: '${X}' }"],
  ["an escaped quote inside a double-quoted value", 'a: { b: "say \\"${X}\\"" }'],
  ["a doubled quote inside a single-quoted value", "a: { b: 'it''s ${X}' }"],
  ["in a comment", "a: { b: 1 } # like ${X}"],
  ["a flow mapping closed before the reference", "a: { b: 1 }\nc: ${X}"],
  ["an apostrophe inside a plain scalar, then a flow mapping", "a: it's\nb: { c: |${X} }"],
  ["a # that is not a comment", "a: { b: x#y, c: |${X} }"],
  ["an unterminated reference in block style", "a: ${X"],
  ["an unterminated quote", 'a: { b: "${X} }'],
  ["a stray closing brace", "} a: ${X}"],
  ["a lone dollar", "a: { b: $, c: |${X} }"],
  ["empty", ""],
];

describe("unquotedFlowReference: hostile corpus", () => {
  for (const [what, marked] of CORPUS) {
    it(what, () => {
      const marker = marked.indexOf("|${");
      const text = marker === -1 ? marked : marked.slice(0, marker) + marked.slice(marker + 1);
      expect(unquotedFlowReference(text)).toBe(marker === -1 ? undefined : marker);
    });
  }
});

describe("unquotedFlowReference: properties", () => {
  it("never throws, and a finding is always a `${` inside the text", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("{", "}", "[", "]", "$", '"', "'", "#", ",", ":", " ", "\n", "\\", "a"),
        }),
        (text) => {
          const found = unquotedFlowReference(text);
          if (found !== undefined) expect(text.slice(found, found + 2)).toBe("${");
        },
      ),
    );
  });

  it("finds nothing in a flow mapping whose references are quoted, which YAML parses cleanly", () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(key, name, fc.constantFrom('"', "'")), {
          selector: ([k]) => k,
          minLength: 1,
          maxLength: 5,
        }),
        (entries) => {
          const text = `x: { ${entries.map(([k, n, q]) => `${k}: ${q}\${${n}}${q}`).join(", ")} }\n`;
          expect(parseDocument(text).errors).toEqual([]);
          expect(unquotedFlowReference(text)).toBeUndefined();
        },
      ),
    );
  });

  it("finds the reference when one entry of such a mapping is left unquoted", () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 5 }), fc.nat(), (names, pick) => {
        const bare = pick % names.length;
        const values = names.map((n, i) => (i === bare ? `\${${n}}` : `"\${${n}}"`));
        const text = `x: { ${values.map((v, i) => `k${i}: ${v}`).join(", ")} }\n`;
        const found = unquotedFlowReference(text) as number;
        expect(text.slice(found)).toMatch(new RegExp(`^\\$\\{${names[bare]}\\}`));
        expect(parseDocument(text).errors.length).toBeGreaterThan(0);
      }),
    );
  });
});
