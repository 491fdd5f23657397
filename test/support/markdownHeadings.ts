/** The headings of one markdown page, as a reader names them and as a link's `#anchor` does. */
export interface MarkdownHeadings {
  /** Each heading's text, normalised by {@link normaliseSectionName}. */
  names: Set<string>;
  /** Each heading's anchor as GitHub makes it (`## Without Express: \`x402Node()\`` → `without-express-x402node`). */
  anchors: Set<string>;
}

/** A heading's rendered text: link text kept, code ticks and emphasis markers dropped. */
function renderedText(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/\*+/g, "")
    .replace(/(^|[^\p{L}\p{N}])_+([^_]+?)_+(?=[^\p{L}\p{N}]|$)/gu, "$1$2")
    .trim();
}

/** How a section is named in prose, for comparison: rendered, lower case, straight quotes, one space. */
export function normaliseSectionName(name: string): string {
  return renderedText(name)
    .replace(/[“”]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` removed, spaces to `-`. */
function anchorOf(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The headings of `text` outside fenced code, with GitHub's `-1`, `-2` suffixes for repeated anchors. */
export function markdownHeadings(text: string): MarkdownHeadings {
  const names = new Set<string>();
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    names.add(normaliseSectionName(heading));
    const anchor = anchorOf(heading);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  return { names, anchors };
}
