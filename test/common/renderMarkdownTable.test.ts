import fc from "fast-check";
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { renderMarkdownTable } from "../../src/common/renderMarkdownTable.js";
import { replaceMarkedRegion } from "../../src/common/replaceMarkedRegion.js";

/** What Prettier (the project's formatter, `prettier --check .` in CI) makes of a Markdown page. */
const prettier = (page: string) => format(page, { parser: "markdown", printWidth: 110 });

describe("renderMarkdownTable", () => {
  const cases: Array<[string, string[], string[][]]> = [
    ["plain cells", ["status", "code", "when"], [["400", "`invalid_payment`", "a field is wrong"]]],
    ["a header wider than every cell", ["a long header", "b"], [["x", "y"]]],
    ["columns narrower than the three dashes", ["a", "b"], [["1", ""]]],
    ["a pipe in a cell (escaped)", ["k", "v"], [["a|b", "`x | y`"]]],
    ["a newline in a cell (joined)", ["k", "v"], [["two\nlines", "x"]]],
    [
      "narrow non-ASCII characters",
      ["k", "v"],
      [
        ["TRACE, PURGE…", "→ 504"],
        ["é", "`application/x402+…`"],
      ],
    ],
    ["a row shorter than the header", ["a", "b", "c"], [["1"]]],
    ["no rows", ["status", "code"], []],
  ];

  it.each(cases)("lays out %s as Prettier does", async (_name, header, rows) => {
    const table = renderMarkdownTable(header, rows);
    expect(await prettier(`${table}\n`)).toBe(`${table}\n`);
    const lines = table.split("\n");
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines.every((line) => line.startsWith("| ") && line.endsWith(" |"))).toBe(true);
  });

  it("keeps every cell's text, in order", () => {
    const table = renderMarkdownTable(["k", "v"], [["a|b", "two\nlines"]]);
    expect(table.split("\n")[2]).toBe("| a\\|b | two lines |");
  });

  it("is left as it is by Prettier for any table of words", async () => {
    // Emphasis markers (`_`, `*`) stay out of prose: Prettier rewrites them, which is not layout.
    const word = fc.stringMatching(/^[A-Za-z0-9.,:;()/'"…→-]{1,12}$/);
    const code = fc.stringMatching(/^[A-Za-z0-9_*.,:;()/'"…→-]{1,12}$/).map((text) => "`" + text + "`");
    const cell = fc.array(fc.oneof(word, code), { maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }).chain((columns) =>
          fc.tuple(
            fc.array(word, { minLength: columns, maxLength: columns }),
            fc.array(
              fc.array(
                cell.map((words) => words.join(" ")),
                { minLength: columns, maxLength: columns },
              ),
              {
                maxLength: 5,
              },
            ),
          ),
        ),
        async ([header, rows]) => {
          const table = renderMarkdownTable(header, rows);
          expect(await prettier(`${table}\n`)).toBe(`${table}\n`);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("replaceMarkedRegion", () => {
  const page = "# Page\n\nintro\n\n<!-- errors:start -->\n\nold table\n\n<!-- errors:end -->\n\nafter\n";

  it("replaces what lies between the markers, keeping the markers and the prose around them", () => {
    const replaced = replaceMarkedRegion(page, "errors", "new table");
    expect(replaced).toBe(
      "# Page\n\nintro\n\n<!-- errors:start -->\n\nnew table\n\n<!-- errors:end -->\n\nafter\n",
    );
    expect(replaceMarkedRegion(replaced, "errors", "new table")).toBe(replaced);
  });

  it.each([
    ["no markers", "# Page\n"],
    ["no end marker", "<!-- errors:start -->\n"],
    ["no start marker", "<!-- errors:end -->\n"],
    ["the end before the start", "<!-- errors:end -->\n<!-- errors:start -->\n"],
    ["a repeated start", "<!-- errors:start -->\n<!-- errors:start -->\n<!-- errors:end -->\n"],
    ["a repeated end", "<!-- errors:start -->\n<!-- errors:end -->\n<!-- errors:end -->\n"],
    ["another region's markers", "<!-- other:start -->\n<!-- other:end -->\n"],
  ])("refuses a page with %s, naming the markers", (_name, text) => {
    expect(() => replaceMarkedRegion(text, "errors", "x")).toThrow(
      /<!-- errors:start -->.*<!-- errors:end -->/,
    );
  });
});
