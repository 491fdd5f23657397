import type { DestinationStream } from "pino";

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};

/** Fields every line has, shown in the line's head rather than repeated as `key=value`. */
const HEAD = new Set(["level", "time", "msg", "pid", "hostname", "name"]);

/** `key=value`, quoting a value with spaces; objects as compact JSON. */
function field(key: string, value: unknown): string {
  const text =
    typeof value === "string"
      ? /[\s="]/.test(value)
        ? JSON.stringify(value)
        : value
      : JSON.stringify(value);
  // A key or value can never break the one-line promise: line breaks stay escaped.
  return `${/[\s="]/.test(key) ? JSON.stringify(key) : key}=${text}`;
}

/** One pino JSON line as `HH:MM:SS.mmm LEVEL msg key=value …`; a line that is not JSON passes unchanged. */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return `${line.trimEnd()}\n`;
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString().slice(11, 23) : "";
  const level = LEVELS[entry.level as number] ?? String(entry.level ?? "");
  const rest = Object.entries(entry)
    .filter(([key, value]) => !HEAD.has(key) && value !== undefined)
    .map(([key, value]) => field(key, value));
  const err = entry.err as { stack?: unknown } | undefined;
  // A logged error's stack reads better on its own lines than inside a JSON string.
  const stack = typeof err?.stack === "string" ? `\n${err.stack}` : "";
  const msg = String(entry.msg ?? "").replace(/[\r\n]/g, (c) => (c === "\n" ? "\\n" : "\\r"));
  return `${[time, level, msg, ...rest].filter(Boolean).join(" ")}${stack}\n`;
}

/** A pino destination writing {@link formatLogLine}'s text to `out` (stdout by default): for terminals. */
export function prettyLogStream(out: NodeJS.WritableStream = process.stdout): DestinationStream {
  return { write: (line: string) => void out.write(formatLogLine(line)) };
}
