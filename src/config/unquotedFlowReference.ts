/**
 * Where a YAML text has a `${VAR}` reference unquoted inside a flow collection (`{ url: ${URL} }`): YAML
 * reads its braces as a nested mapping and the parser reports a cascade of unrelated-looking errors.
 * Returns the offset of the first such `$`, or undefined. Quotes and `#` comments are skipped.
 */
export function unquotedFlowReference(text: string): number | undefined {
  let depth = 0;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== undefined) {
      if (quote === '"' && char === "\\") i++;
      else if (quote === "'" && char === "'" && text[i + 1] === "'") i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "#" && (i === 0 || /\s/.test(text[i - 1] as string))) {
      const end = text.indexOf("\n", i);
      if (end === -1) return undefined;
      i = end;
    } else if ((char === '"' || char === "'") && (i === 0 || /[\s{[,:]/.test(text[i - 1] as string))) {
      // A quote opens a quoted scalar only where a scalar starts: `it's` in a plain scalar is text.
      quote = char;
    } else if (char === "$" && text[i + 1] === "{") {
      if (depth > 0) return i;
      // Skip the reference itself: its braces are not a flow mapping.
      const end = text.indexOf("}", i);
      if (end === -1) return undefined;
      i = end;
    } else if (char === "{" || char === "[") {
      depth++;
    } else if ((char === "}" || char === "]") && depth > 0) {
      depth--;
    }
  }
  return undefined;
}
