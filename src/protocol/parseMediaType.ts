/** A media type as RFC 9110 §8.3.1 writes it: type, subtype and parameters, names lower-cased. */
export interface MediaType {
  /** `type/subtype`, lower-cased. */
  essence: string;
  type: string;
  subtype: string;
  /** Parameters by lower-cased name (values as sent, quoted strings unescaped); a repeated name is refused. */
  parameters: ReadonlyMap<string, string>;
}

// token = 1*tchar; OWS = *( SP / HTAB ); parameters = *( OWS ";" OWS [ name "=" ( token / quoted-string ) ] )
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
const ESSENCE = new RegExp(`^[ \\t]*(${TOKEN})/(${TOKEN})`, "y");
const PARAMETER = new RegExp(`[ \\t]*;[ \\t]*(?:(${TOKEN})=(${TOKEN}|${QUOTED}))?`, "y");
const TRAILING_SPACE = /[ \t]*$/y;

/**
 * Parse one media type strictly (a `Content-Type` value): exactly the RFC 9110 grammar, nothing after it
 * but whitespace. `undefined` for anything else — a list, a bad character, a parameter without a value,
 * a repeated parameter, an unterminated quoted string.
 */
export function parseMediaType(value: string): MediaType | undefined {
  ESSENCE.lastIndex = 0;
  const essence = ESSENCE.exec(value);
  if (essence === null) return undefined;
  const type = (essence[1] as string).toLowerCase();
  const subtype = (essence[2] as string).toLowerCase();
  const parameters = new Map<string, string>();
  let at = ESSENCE.lastIndex;
  for (;;) {
    PARAMETER.lastIndex = at;
    const parameter = PARAMETER.exec(value);
    if (parameter === null) break;
    at = PARAMETER.lastIndex;
    const [, name, raw] = parameter;
    if (name === undefined || raw === undefined) continue;
    const key = name.toLowerCase();
    if (parameters.has(key)) return undefined;
    parameters.set(key, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw);
  }
  TRAILING_SPACE.lastIndex = at;
  TRAILING_SPACE.exec(value);
  if (TRAILING_SPACE.lastIndex !== value.length) return undefined;
  return { essence: `${type}/${subtype}`, type, subtype, parameters };
}
