import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** How a doc marks a ```yaml block for `check-config` (an HTML comment on the line before the fence). */
export type YamlBlockMark =
  { kind: "config" } | { kind: "fragment"; reason: string } | { kind: "fails"; expect: string | undefined };

export interface YamlBlock {
  /** Where the fence opens: `docs/SCALING.md:199`. */
  where: string;
  text: string;
  mark: YamlBlockMark;
}

const FENCE = /^(\s*)```yaml\s*$/;
const MARK = /^\s*<!--\s*check-config:\s*(fragment|fails)\b\s*(.*?)\s*-->\s*$/;

/** Every ```yaml block of README.md and docs/**\/*.md, de-indented, with its mark. */
export function yamlBlocks(root: string): YamlBlock[] {
  const files = ["README.md", ...markdownUnder(join(root, "docs")).map((file) => relative(root, file))];
  return files.flatMap((file) => blocksOf(file, readFileSync(join(root, file), "utf8")));
}

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The blocks of one markdown text (exported for its own test). */
export function blocksOf(file: string, markdown: string): YamlBlock[] {
  const lines = markdown.split("\n");
  const blocks: YamlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i]!);
    if (fence === null) continue;
    const indent = fence[1]!.length;
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) body.push(lines[end++]!.slice(indent));
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === "") before--;
    blocks.push({ where: `${file}:${i + 1}`, text: `${body.join("\n")}\n`, mark: markOf(lines[before]) });
    i = end;
  }
  return blocks;
}

function markOf(line: string | undefined): YamlBlockMark {
  const match = MARK.exec(line ?? "");
  if (match === null) return { kind: "config" };
  const rest = match[2] ?? "";
  if (match[1] === "fragment") return { kind: "fragment", reason: rest };
  const quoted = /^"([^"]+)"/.exec(rest);
  return { kind: "fails", expect: quoted?.[1] };
}
