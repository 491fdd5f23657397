import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import type { z } from "zod/v4";
import { formatPath } from "../protocol/describeIssues.js";
import { RouteConfigError } from "../pricing/RouteTable.js";
import { buildRouteTable } from "../pricing/buildRouteTable.js";
import { ConfigError, type ConfigProblem } from "./ConfigError.js";
import { gatewayConfigSchema, type GatewayConfig } from "./gatewayConfigSchema.js";
import { interpolateEnv } from "./interpolateEnv.js";
import { keysAllowedAt } from "./keysAllowedAt.js";

export interface LoadConfigOptions {
  /** Where `${VAR}` references are looked up; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
}

type Located = { node: Node | null; keyNode: Node | null; found: boolean };

/** Read, interpolate and validate a YAML or JSON config file; throws {@link ConfigError} naming file, line and key. */
export async function loadConfig(file: string, options: LoadConfigOptions = {}): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError([
      { file, path: "(root)", message: `cannot read the file: ${(error as Error).message}` },
    ]);
  }
  const config = parseConfig(text, { file, env: options.env ?? process.env });
  const base = dirname(resolve(file));
  if (config.listen.tls) {
    config.listen.tls = {
      certFile: resolve(base, config.listen.tls.certFile),
      keyFile: resolve(base, config.listen.tls.keyFile),
    };
  }
  return config;
}

/** {@link loadConfig} without the file system: `file` only names the source in errors. */
export function parseConfig(
  text: string,
  options: { file: string; env: Readonly<Record<string, string | undefined>> },
): GatewayConfig {
  const { file } = options;
  const lineCounter = new LineCounter();
  // Hex and octal integers are off: an unquoted `0x…` address must stay a string, not become a number.
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    customTags: (tags) =>
      tags.filter(
        (tag) =>
          typeof tag !== "object" || !("format" in tag) || (tag.format !== "HEX" && tag.format !== "OCT"),
      ),
  });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };

  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((error) => ({
        file,
        ...at(error.pos[0]),
        path: "(syntax)",
        message: `invalid YAML/JSON: ${error.message.split("\n")[0]}`,
      })),
    );
  }

  const problems: ConfigProblem[] = [];
  interpolateNode(doc.contents, [], options.env, (path, node, missing) =>
    problems.push({
      file,
      ...at(node.range?.[0]),
      path: formatPath(path),
      message: missing
        .map((name) => `environment variable ${name} is not set (set it, or write \${${name}:-default})`)
        .join("; "),
    }),
  );
  if (problems.length > 0) throw new ConfigError(problems);

  const data: unknown = doc.toJS({ maxAliasCount: 100 }) ?? {};
  const result = gatewayConfigSchema.safeParse(data);
  if (!result.success) {
    const problems = result.error.issues.flatMap((issue) => describeIssue(issue, doc, file, at));
    throw new ConfigError(problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
  }
  const config = result.data;
  // The schema checks each price's shape; the route table checks what only the whole config can say
  // (a valid route key, a known asset for a money string), exactly as x402() will at start-up.
  try {
    buildRouteTable(config);
  } catch (error) {
    if (!(error instanceof RouteConfigError)) throw error;
    const prefix = `routes[${JSON.stringify(error.key)}].`;
    const detail = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    // "price: …" names a field of the route; "key: …" is about the route's key itself.
    const [, field, rest] = /^(\w+): ([\s\S]*)$/.exec(detail) ?? [];
    const onField = field !== undefined && field !== "key" && rest !== undefined;
    const path = onField ? ["routes", error.key, field] : ["routes", error.key];
    const located = locate(doc, path);
    const node = located.found && onField ? located.node : (located.keyNode ?? located.node);
    throw new ConfigError([
      { file, ...at(node?.range?.[0]), path: formatPath(path), message: onField ? rest : detail },
    ]);
  }
  return config;
}

function describeIssue(
  issue: z.core.$ZodIssue,
  doc: Document,
  file: string,
  at: (offset: number | undefined) => { line?: number; column?: number },
): ConfigProblem[] {
  if (issue.code === "unrecognized_keys") {
    const allowed = keysAllowedAt(gatewayConfigSchema, issue.path);
    return issue.keys.map((key) => {
      const path = [...issue.path, key];
      const located = locate(doc, path);
      return {
        file,
        ...at((located.keyNode ?? located.node)?.range?.[0]),
        path: formatPath(path),
        message: `unknown key "${key}"${allowed.length > 0 ? `; expected one of: ${allowed.join(", ")}` : ""}`,
      };
    });
  }
  const located = locate(doc, issue.path);
  let message = issue.message;
  if (!located.found) {
    const expected = issue.code === "invalid_type" ? `expected ${issue.expected}` : message;
    message = `missing required key (${message.startsWith("Invalid input") ? expected : message})`;
  }
  return [
    {
      file,
      ...at((located.found ? located.node : (located.keyNode ?? located.node))?.range?.[0]),
      path: formatPath(issue.path),
      message,
    },
  ];
}

/** The node at `path`, or the deepest ancestor that exists. */
function locate(doc: Document, path: ReadonlyArray<PropertyKey>): Located {
  let node = doc.contents as Node | null;
  let keyNode: Node | null = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isScalar(item.key) && String(item.key.value) === String(segment),
      );
      if (!pair) return { node, keyNode, found: false };
      keyNode = pair.key as Node;
      node = (pair.value as Node | null) ?? keyNode;
    } else if (isSeq(node) && typeof segment === "number" && node.items[segment] !== undefined) {
      node = node.items[segment] as Node;
      keyNode = null;
    } else {
      return { node, keyNode, found: false };
    }
  }
  return { node, keyNode, found: true };
}

type OnMissing = (path: PropertyKey[], node: Node, missing: string[]) => void;

/** Interpolate `${VAR}` in every string value (keys are left alone); plain scalars get their YAML type back. */
function interpolateNode(
  node: unknown,
  path: PropertyKey[],
  env: Readonly<Record<string, string | undefined>>,
  onMissing: OnMissing,
): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : "?";
      interpolateNode(pair.value, [...path, key], env, onMissing);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => interpolateNode(item, [...path, index], env, onMissing));
  } else if (isScalar(node) && typeof node.value === "string" && node.value.includes("${")) {
    const result = interpolateEnv(node.value, env);
    if (!result.ok) {
      onMissing(path, node, result.missing);
      return;
    }
    node.value = node.type === "PLAIN" ? retype(result.value) : result.value;
  }
}

/** What an unquoted YAML scalar with this text would have been: `port: ${PORT:-8402}` stays a number. */
function retype(text: string): string | number | boolean {
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text)) return Number(text);
  if (text === "true" || text === "false") return text === "true";
  return text;
}
