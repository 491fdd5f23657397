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
import { loadPlugins } from "./loadPlugins.js";
import { keysAllowedAt } from "./keysAllowedAt.js";
import { tlsFileProblems } from "./tlsFileProblems.js";
import { routesAsTable } from "../pricing/routesAsTable.js";
import { unquotedFlowReference } from "./unquotedFlowReference.js";

export interface LoadConfigOptions {
  /** Where `${VAR}` references are looked up; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
}

type Located = { node: Node | null; keyNode: Node | null; found: boolean };
type Place = { line?: number; column?: number };

/** Read, interpolate and validate a YAML or JSON config file; throws {@link ConfigError} naming file, line and key. */
export async function loadConfig(file: string, options: LoadConfigOptions = {}): Promise<GatewayConfig> {
  const { config, problems } = await inspectConfig(file, options);
  if (config === undefined || problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** What {@link inspectConfig} found: every problem, and the config when the file got as far as validating. */
export interface ConfigInspection {
  /** The validated config; absent when the syntax, an environment variable or the schema failed. */
  config?: GatewayConfig;
  /** Every problem found, in file order (empty when the config can be used). */
  problems: ConfigProblem[];
}

/**
 * {@link loadConfig}, collecting instead of throwing: environment and schema problems together, then the
 * cross-field rules and the listener's TLS files (that they exist, parse and match), so one run shows all.
 */
export async function inspectConfig(
  file: string,
  options: LoadConfigOptions = {},
): Promise<ConfigInspection> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return {
      problems: [{ file, path: "(root)", message: `cannot read the file: ${(error as Error).message}` }],
    };
  }
  const inspection = validateConfig(text, { file, env: options.env ?? process.env });
  const { config } = inspection;
  if (config?.listen.tls) {
    const base = dirname(resolve(file));
    config.listen.tls = {
      certFile: resolve(base, config.listen.tls.certFile),
      keyFile: resolve(base, config.listen.tls.keyFile),
    };
    for (const problem of await tlsFileProblems(config.listen.tls)) {
      const path = ["listen", "tls", problem.key];
      inspection.problems.push({
        file,
        ...inspection.at(path),
        path: formatPath(path),
        message: problem.message,
      });
    }
  }
  // The recorder's files, like the TLS ones, are read from the config file's folder.
  const recorder = config?.recorder;
  if (recorder !== undefined) {
    const base = dirname(resolve(file));
    if (typeof recorder.queue === "object") recorder.queue = { file: resolve(base, recorder.queue.file) };
    if (recorder.keystore !== undefined) {
      recorder.keystore = {
        file: resolve(base, recorder.keystore.file),
        passwordFile: resolve(base, recorder.keystore.passwordFile),
      };
    }
  }
  if (config !== undefined && config.plugins.length > 0) {
    const base = dirname(resolve(file));
    config.plugins = config.plugins.map((plugin) => resolve(base, plugin));
    for (const problem of (await loadPlugins(config.plugins)).problems) {
      const path = ["plugins", problem.index];
      inspection.problems.push({
        file,
        ...inspection.at(path),
        path: formatPath(path),
        message: problem.message,
      });
    }
  }
  return { config, problems: inspection.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
}

/** {@link loadConfig} without the file system: `file` only names the source in errors. */
export function parseConfig(
  text: string,
  options: { file: string; env: Readonly<Record<string, string | undefined>> },
): GatewayConfig {
  const { config, problems } = validateConfig(text, options);
  if (config === undefined || problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** A text's problems and config; `at` places a key path in the file (for checks made after this one). */
function validateConfig(
  text: string,
  options: { file: string; env: Readonly<Record<string, string | undefined>> },
): ConfigInspection & { problems: ConfigProblem[]; at: (path: PropertyKey[]) => Place } {
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
  const at = (offset: number | undefined): Place => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const atPath = (path: PropertyKey[]): Place => {
    const located = locate(doc, path);
    return at((located.found ? located.node : (located.keyNode ?? located.node))?.range?.[0]);
  };

  if (doc.errors.length > 0) {
    // One cause, dozens of parser errors: an unquoted ${VAR} in a flow mapping gets one line that says so.
    const reference = unquotedFlowReference(text);
    if (reference !== undefined) {
      const [literal = "${VAR}", name = "VAR"] = /^\$\{([^}:]*)[^}]*\}?/.exec(text.slice(reference)) ?? [];
      // The flow entry the reference is in (after the last `{`, `[` or `,`), as it would read on its own line.
      const entry = /[^{[,]*$/.exec(text.slice(0, reference))?.[0].trim() ?? "";
      const blockStyle = /^[\w.-]+\s*:/.test(entry)
        ? `write the key on its own line (${entry} ${literal})`
        : `write the list one item per line (- ${entry ? `${entry} ` : ""}${literal})`;
      return {
        at: atPath,
        problems: [
          {
            file,
            ...at(reference),
            path: "(syntax)",
            message: `invalid YAML: an unquoted \${${name}} inside { … } or [ … ] reads as YAML braces; ${blockStyle}, or quote it ("\${${name}}") where the value is text`,
          },
        ],
      };
    }
    return {
      at: atPath,
      problems: doc.errors.map((error) => ({
        file,
        ...at(error.pos[0]),
        path: "(syntax)",
        message: `invalid YAML/JSON: ${error.message.split("\n")[0]}`,
      })),
    };
  }

  const missing: ConfigProblem[] = [];
  interpolateNode(doc.contents, [], options.env, (path, node, names) =>
    missing.push({
      file,
      ...at(node.range?.[0]),
      path: formatPath(path),
      message: names
        .map((name) => `environment variable ${name} is not set (set it, or write \${${name}:-default})`)
        .join("; "),
    }),
  );

  const data: unknown = doc.toJS({ maxAliasCount: 100 }) ?? {};
  const result = gatewayConfigSchema.safeParse(routesAsTable(data));
  if (!result.success || missing.length > 0) {
    // A key whose variable is missing is reported once, as the missing variable, not again by the schema.
    const unset = new Set(missing.map((problem) => problem.path));
    const schema = result.success
      ? []
      : result.error.issues
          .flatMap((issue) => describeIssue(issue, doc, file, at))
          .filter((problem) => !unset.has(problem.path));
    const problems = [...missing, ...schema].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    return { at: atPath, problems };
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
    return {
      config,
      at: atPath,
      problems: [{ file, ...at(node?.range?.[0]), path: formatPath(path), message: onField ? rest : detail }],
    };
  }
  return { config, at: atPath, problems: [] };
}

function describeIssue(
  issue: z.core.$ZodIssue,
  doc: Document,
  file: string,
  at: (offset: number | undefined) => { line?: number; column?: number },
): ConfigProblem[] {
  if (issue.code === "invalid_union" && issue.message.startsWith("Invalid input")) {
    // A key of one form or another (an object or a list) without a message of its own: report what is
    // wrong in the form it was given.
    const given = issue.errors.filter(
      (branch) => !branch.some((inner) => inner.code === "invalid_type" && inner.path.length === 0),
    );
    if (given.length === 1)
      return (given[0] as z.core.$ZodIssue[]).flatMap((inner) =>
        describeIssue({ ...inner, path: [...issue.path, ...inner.path] }, doc, file, at),
      );
  }
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
  // A cross-field rule names the key it is about and says why; other issues at a missing key say so.
  if (!located.found && issue.code !== "custom") {
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
