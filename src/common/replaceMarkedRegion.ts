/**
 * `text` with what lies between `<!-- {name}:start -->` and `<!-- {name}:end -->` replaced by `content`
 * (a blank line either side, as Markdown needs around a table). Throws when the markers are missing,
 * repeated or out of order, naming them: a generator must never write a page it could not place.
 */
export function replaceMarkedRegion(text: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) {
    throw new Error(`expected one "${start}" followed by one "${end}"`);
  }
  if (text.indexOf(start, from + 1) !== -1 || text.indexOf(end, to + 1) !== -1) {
    throw new Error(`"${start}" and "${end}" must each appear once`);
  }
  return `${text.slice(0, from + start.length)}\n\n${content}\n\n${text.slice(to)}`;
}
