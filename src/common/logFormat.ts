/** How log lines are written: `json` (one object a line, for services) or `pretty` (for a terminal). */
export type LogFormat = "json" | "pretty";

/** `LOG_FORMAT` as a {@link LogFormat}: unset is `fallback`; anything else but json/pretty is an error naming it. */
export function logFormatFrom(value: string | undefined, fallback: LogFormat = "json"): LogFormat {
  if (value === undefined || value === "") return fallback;
  if (value === "json" || value === "pretty") return value;
  throw new RangeError(`LOG_FORMAT must be json or pretty, got ${JSON.stringify(value)}`);
}
