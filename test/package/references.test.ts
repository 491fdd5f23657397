import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { findReferences, type Reference } from "../support/findReferences.js";
import {
  markdownHeadings,
  normaliseSectionName,
  type MarkdownHeadings,
} from "../support/markdownHeadings.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

/** Tracked files plus new ones not ignored, minus vendored text that is not ours to keep pointing right. */
function repositoryFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return listed
    .split("\0")
    .filter((path) => path !== "" && !path.startsWith("test/fixtures/") && existsSync(join(ROOT, path)));
}

/** Where prose sends a reader: every page, every YAML file (config, alert rules), and the sources' help and doc comments. */
function proseFiles(): string[] {
  return repositoryFiles().filter(
    (path) => /\.(md|ya?ml)$/.test(path) || /^(src|scripts|bench|reliability|examples)\/.*\.ts$/.test(path),
  );
}

function isIgnored(path: string): boolean {
  try {
    execFileSync("git", ["check-ignore", "-q", path], { cwd: ROOT, stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const headingsCache = new Map<string, MarkdownHeadings>();
function headingsOf(path: string): MarkdownHeadings {
  let headings = headingsCache.get(path);
  if (headings === undefined) {
    headings = markdownHeadings(readFileSync(join(ROOT, path), "utf8"));
    headingsCache.set(path, headings);
  }
  return headings;
}

/** A section named in prose matches a heading as written, or without its trailing "(…)" aside. */
function hasSection(headings: MarkdownHeadings, section: string): boolean {
  const wanted = normaliseSectionName(section);
  return [...headings.names].some((name) => name === wanted || name.replace(/\s*\([^)]*\)$/, "") === wanted);
}

/** What is wrong with one pointer, or undefined when the file (and its section) exist. */
function problemOf(reference: Reference): string | undefined {
  const where = `${reference.at} (${reference.form}) "${reference.text}"`;
  const path = reference.candidates.find((candidate) => existsSync(join(ROOT, candidate)));
  if (path === undefined) {
    // A git-ignored output (reliability/results/, .cache/) is made by the run the prose describes.
    if (reference.candidates.some(isIgnored)) return undefined;
    return `${where}: no such file (${reference.candidates.join(" or ")})`;
  }
  const wantsHeading =
    reference.anchor !== undefined || reference.section !== undefined || reference.number !== undefined;
  if (!wantsHeading) return undefined;
  if (statSync(join(ROOT, path)).isDirectory() || !path.endsWith(".md"))
    return `${where}: ${path} is not a page with sections`;
  const headings = headingsOf(path);
  if (reference.anchor !== undefined && !headings.anchors.has(reference.anchor.toLowerCase()))
    return `${where}: ${path} has no heading #${reference.anchor}`;
  if (reference.section !== undefined && !hasSection(headings, reference.section))
    return `${where}: ${path} has no section "${reference.section}"`;
  if (
    reference.number !== undefined &&
    ![...headings.names].some((name) => new RegExp(`^${reference.number}[. ]`).test(name))
  )
    return `${where}: ${path} has no section numbered ${reference.number}`;
  return undefined;
}

function problemsIn(file: string, text: string): string[] {
  return findReferences(file, text)
    .map(problemOf)
    .filter((problem): problem is string => problem !== undefined);
}

/** Each command's --help, as a user reads it. */
const HELP = [
  ["src/cli/x402-gateway.ts", "--help"],
  ["src/cli/x402-gateway.ts", "serve", "--help"],
  ["src/cli/x402-gateway.ts", "check-config", "--help"],
  ["src/cli/x402-gateway.ts", "recognize", "--help"],
  ["src/cli/x402-gateway.ts", "revoke", "--help"],
  ["src/cli/staking-backend.ts", "--help"],
  ["src/mcp/x402-pay-mcp.ts", "--help"],
];

describe("pointers in prose name something that exists", () => {
  it("the finder reads every form, and tells a pointer that holds from one that does not", () => {
    const cases: [file: string, text: string, form: Reference["form"], holds: boolean][] = [
      ["docs/x.md", "[the gateway](gateway.md)", "link", true],
      ["docs/x.md", "[the gateway](gateway.md#admin-endpoint)", "link", true],
      ["docs/x.md", "[the gateway](gateway.md#no-such-heading)", "link", false],
      ["docs/x.md", "[gone](design/NOPE.md)", "link", false],
      ["docs/x.md", "[the package](../package.json)", "link", true],
      ["docs/gateway.md", "[TLS](#tls)", "link", true],
      ["docs/gateway.md", "[TLS](#tls-and-more)", "link", false],
      ["README.md", "[middleware](docs/middleware.md#without-express-x402node)", "link", true],
      ["src/a.ts", "// see docs/gateway.md", "path", true],
      ["src/a.ts", "// see docs/nope.md.", "path", false],
      ["config/x.yaml", "# reference: docs/config-reference.md", "path", true],
      ["src/a.ts", "// README.md covers it", "name", true],
      ["src/a.ts", "// see WIRE.md", "name", false],
      ["src/cli/a.ts", '  --config  file (see README.md, "Set-up")', "section", true],
      ["src/cli/a.ts", '  --config  file (see README.md, "Staking backend")', "section", false],
      ["src/a.ts", '/** The extension (README: "Recognized payers"). */', "section", true],
      ["src/a.ts", '/** The extension (README: "Recognition"). */', "section", false],
      ["docs/x.md", 'see docs/gateway.md, "Which deployments must\n  share a ledger"', "section", true],
      ["src/a.ts", '// (docs/cbor.md, "Delegation")', "section", true],
      ["src/a.ts", "// README section “Two wire formats”", "section", true],
      ["src/a.ts", "// docs/gateway.md §1", "numbered", false],
      ["docs/cbor.md", "checked (see _Delegation_)", "same-page", true],
      ["docs/cbor.md", "checked (see _The stand-in proof_)", "same-page", false],
      ["docs/gateway.md", "or a trusted proxy (see TLS below)", "same-page", true],
      ["docs/gateway.md", "or a trusted proxy (see Certificates below)", "same-page", false],
    ];
    for (const [file, text, form, holds] of cases) {
      const references = findReferences(file, text).filter((reference) => reference.form === form);
      expect(references.length, `${file}: ${text}`).toBeGreaterThan(0);
      expect(references.map(problemOf).filter(Boolean).length === 0, `${file}: ${text}`).toBe(holds);
    }
    // Text that only looks like a pointer: a URL, a path inside another path, a link in a code block.
    const lookalikes = [
      "https://github.com/owner/name/blob/main/docs/nope.md",
      "node_modules/x/docs/nope.md and .cache/NOPE.md",
      "```\n[x](https://example.com/nope.md)\n```",
      'const out = join(HERE, ".cache", "NOPE.md"); // code, not prose',
      '"[the catalogue](nope.md)" written by code into a page',
    ];
    for (const text of lookalikes) expect(findReferences("src/x.ts", text), text).toEqual([]);
    expect(findReferences("docs/x.md", "```\n[x](nope.md)\n```\n").map((r) => r.form)).not.toContain("link");
  });

  it("in the pages, the YAML files and the sources' help texts and comments", () => {
    const files = proseFiles();
    expect(files).toEqual(
      expect.arrayContaining(["README.md", "config/gateway.yaml", "src/cli/x402-gateway.ts"]),
    );
    const references = files.flatMap((file) => findReferences(file, readFileSync(join(ROOT, file), "utf8")));
    expect(references.filter((reference) => reference.form === "link").length).toBeGreaterThan(50);
    const problems = references.map(problemOf).filter((problem): problem is string => problem !== undefined);
    expect(problems).toEqual([]);
  });

  it("in what each command prints for --help", { timeout: 120_000 }, async () => {
    const outputs = await Promise.all(
      HELP.map(async ([script, ...args]) => {
        const { stdout } = await run(process.execPath, ["--import", "tsx", script!, ...args], {
          cwd: ROOT,
          env: { ...process.env, NO_COLOR: "1" },
        });
        return [`${script} ${args.join(" ")}`, stdout] as const;
      }),
    );
    for (const [command, stdout] of outputs) expect(stdout, command).toMatch(/usage/i);
    const problems = outputs.flatMap(([command, stdout]) => problemsIn(command, stdout));
    expect(problems).toEqual([]);
  });
});
