import { dirname, join, normalize } from "node:path";

/** One pointer written in prose: a file, and maybe a section of it, that the reader is sent to. */
export interface Reference {
  /** Where it is written, `file:line`. */
  at: string;
  /** Which form it took: `link`, `path`, `name`, `section`, `numbered` or `same-page`. */
  form: "link" | "path" | "name" | "section" | "numbered" | "same-page";
  /** The pointer as written. */
  text: string;
  /** Repository-relative paths it may mean, in order; it holds when the first that exists holds. */
  candidates: string[];
  /** A GitHub `#anchor` the page must have. */
  anchor?: string;
  /** A heading the page must have, as prose names it ("The config file"). */
  section?: string;
  /** A numbered heading the page must have (`WIRE.md §2` → a heading starting with `2.`). */
  number?: string;
}

/** Top-level folders of the repository that prose names by path (`docs/cbor.md`, `config/`). */
const TOP = "(?:docs|config|examples|src|test|bench|reliability|scripts|\\.ci)";
/** A path from the repository root; not the tail of a URL or of a longer path. */
const ROOT_PATH = `(?<![\\w./@:~-])(${TOP}/(?:[\\w.-]+(?:/[\\w.-]+)*/?)?)`;
/**
 * A bare page name (`README.md`, `WIRE.md`) or the word README: not the tail of a path, nor a string
 * literal of code (`"RESULTS.md"`) or the target of a markdown link that code writes into a page.
 */
const PAGE_NAME = "(?<![\\w./\"'[-])(?<!\\]\\()([\\w][\\w-]*\\.md|README)(?![\\w-])";
/** What may stand between a file and the quoted name of its section: `, "…"`, `: "…"`, `'s section "…"`. */
const SECTION = `(?:'s)?\\s*[,:]?\\s+(?:section\\s+)?["“]([^"”]{1,160})["”]`;
/** A section named right after a pointer, joined across lines and comment markers. */
const FILE_THEN_SECTION = new RegExp(`(?:${ROOT_PATH}|${PAGE_NAME})${SECTION}`, "g");
const FILE_THEN_NUMBER = new RegExp(`(?:${ROOT_PATH}|${PAGE_NAME})\\s*§\\s*(\\d+)`, "g");

/** The line `index` falls on, 1-based. */
function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line += 1;
  return line;
}

/** A name wrapped over lines of a comment or a YAML file, back on one line. */
function unwrap(name: string): string {
  return name.replace(/\s*\n\s*(?:\/\/|\*|#)?\s*/g, " ").trim();
}

/** Candidate files for a pointer written in `file`: a root path, or a page name beside it or at the root. */
function candidatesOf(file: string, written: string): string[] {
  const path = written.replace(/\.+$/, "");
  if (path === "README") return ["README.md"];
  if (path.includes("/")) return [normalize(path)];
  return [...new Set([normalize(join(dirname(file), path)), path])];
}

/** `text` with fenced code blocks blanked (line breaks kept), so links and headings in code are not read. */
function withoutFences(text: string): string {
  return text.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\2[^\n]*$/gm, (block) =>
    block.replace(/[^\n]/g, " "),
  );
}

/**
 * Every pointer in `text`, the contents of the repository file `file`: markdown links (in `.md` files),
 * paths from the root (`docs/cbor.md#…`), page names (`README.md`), a section named after either
 * (`README.md, "The config file"`, `docs/cbor.md §2`), and a page's own sections (`see _Delegation_`,
 * `see TLS below`).
 */
export function findReferences(file: string, text: string): Reference[] {
  const found: Reference[] = [];
  const add = (index: number, reference: Omit<Reference, "at">) =>
    found.push({ at: `${file}:${lineOf(text, index)}`, ...reference });
  const markdown = file.endsWith(".md");
  const prose = markdown ? withoutFences(text) : text;

  if (markdown) {
    for (const match of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) continue;
      const [path, anchor] = target.split("#", 2) as [string, string | undefined];
      const decoded = decodeURI(path);
      add(match.index, {
        form: "link",
        text: target,
        candidates: [decoded === "" ? file : normalize(join(dirname(file), decoded))],
        ...(anchor ? { anchor } : {}),
      });
    }
    for (const match of prose.matchAll(/\bsee (?:the )?_([^_\n]+)_/gi))
      add(match.index, { form: "same-page", text: match[0], candidates: [file], section: match[1]! });
    for (const match of prose.matchAll(/\bsee ([A-Z][\w`-]*(?: [\w`-]+){0,3}) (?:below|above)\b/g))
      add(match.index, { form: "same-page", text: match[0], candidates: [file], section: match[1]! });
  }
  for (const match of text.matchAll(new RegExp(`${ROOT_PATH}(?:#([\\w-]+))?`, "g"))) {
    add(match.index, {
      form: "path",
      text: match[0],
      candidates: candidatesOf(file, match[1]!),
      ...(match[2] ? { anchor: match[2] } : {}),
    });
  }
  for (const match of text.matchAll(new RegExp(PAGE_NAME, "g")))
    add(match.index, { form: "name", text: match[0], candidates: candidatesOf(file, match[1]!) });
  for (const match of text.matchAll(FILE_THEN_SECTION)) {
    add(match.index, {
      form: "section",
      text: unwrap(match[0]),
      candidates: candidatesOf(file, (match[1] ?? match[2])!),
      section: unwrap(match[3]!),
    });
  }
  for (const match of text.matchAll(FILE_THEN_NUMBER)) {
    add(match.index, {
      form: "numbered",
      text: match[0],
      candidates: candidatesOf(file, (match[1] ?? match[2])!),
      number: match[3]!,
    });
  }
  return found;
}
