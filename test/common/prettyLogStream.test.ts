import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { logFormatFrom } from "../../src/common/logFormat.js";
import { formatLogLine, prettyLogStream } from "../../src/common/prettyLogStream.js";

const TIME = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe("formatLogLine", () => {
  const cases: Array<[string, string, string]> = [
    [
      "time, level and message first; the rest as key=value",
      JSON.stringify({
        level: 30,
        time: TIME,
        pid: 1,
        hostname: "h",
        name: "x402-gateway",
        msg: "request",
        status: 200,
        path: "/a",
      }),
      "03:04:05.678 INFO  request status=200 path=/a\n",
    ],
    [
      "values with spaces or quotes quoted; objects as JSON",
      JSON.stringify({
        level: 40,
        time: TIME,
        msg: "not ready",
        error: "connect refused",
        check: { name: "x" },
      }),
      '03:04:05.678 WARN  not ready error="connect refused" check={"name":"x"}\n',
    ],
    [
      "an error's stack on its own lines",
      JSON.stringify({
        level: 50,
        time: TIME,
        msg: "failed",
        err: { type: "Error", stack: "Error: boom\n    at f" },
      }),
      '03:04:05.678 ERROR failed err={"type":"Error","stack":"Error: boom\\n    at f"}\nError: boom\n    at f\n',
    ],
    [
      "an unknown level shown as it is",
      JSON.stringify({ level: 35, time: TIME, msg: "m" }),
      "03:04:05.678 35 m\n",
    ],
    ["not JSON: unchanged", "plain text", "plain text\n"],
    ["JSON that is not an object: unchanged", "[1,2]\n", "[1,2]\n"],
    ["JSON null: unchanged", "null", "null\n"],
  ];
  for (const [what, line, expected] of cases) it(what, () => expect(formatLogLine(line)).toBe(expected));

  it("writes exactly one line (or an error's stack) per entry, whatever the fields", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue()),
        fc.string({ unit: "binary" }),
        (fields, msg) => {
          const out = formatLogLine(JSON.stringify({ ...fields, level: 30, time: TIME, msg }));
          expect(out.endsWith("\n")).toBe(true);
          if (typeof (fields.err as { stack?: unknown } | undefined)?.stack !== "string") {
            expect(out.slice(0, -1).split("\n").length).toBe(1);
          }
        },
      ),
    );
  });

  it("prettyLogStream writes the formatted line to its output", () => {
    let written = "";
    const stream = prettyLogStream({
      write: (text: string) => ((written += text), true),
    } as NodeJS.WritableStream);
    stream.write(`${JSON.stringify({ level: 30, time: TIME, msg: "stopped" })}\n`);
    expect(written).toBe("03:04:05.678 INFO  stopped\n");
  });
});

describe("logFormatFrom", () => {
  it("reads json and pretty, falls back when unset, and names LOG_FORMAT otherwise", () => {
    expect(logFormatFrom(undefined)).toBe("json");
    expect(logFormatFrom("", "pretty")).toBe("pretty");
    expect(logFormatFrom("pretty")).toBe("pretty");
    expect(logFormatFrom("json", "pretty")).toBe("json");
    expect(() => logFormatFrom("JSON")).toThrow(/LOG_FORMAT must be json or pretty, got "JSON"/);
  });
});
