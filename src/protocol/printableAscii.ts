/**
 * Text safe to repeat in a header or a refusal: printable ASCII only (anything else becomes `?`), at
 * most `maxChars` characters (a longer text is cut and ends in `~`).
 */
export function printableAscii(text: string, maxChars: number): string {
  const clean = text.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}~` : clean;
}
