/** `${NAME}` or `${NAME:-default}`; `$${` escapes a literal `${`. */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type InterpolationResult = { ok: true; value: string } | { ok: false; missing: string[] };

/**
 * Replace environment references in one string. An unset variable with no default is reported, never
 * replaced by an empty string; `${NAME:-default}` uses the default when NAME is unset or empty (as in sh).
 */
export function interpolateEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): InterpolationResult {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === "$${") return "${";
    const current = env[name as string];
    if (fallback !== undefined) return current === undefined || current === "" ? fallback : current;
    if (current === undefined) {
      missing.push(name as string);
      return "";
    }
    return current;
  });
  return missing.length > 0 ? { ok: false, missing } : { ok: true, value };
}
