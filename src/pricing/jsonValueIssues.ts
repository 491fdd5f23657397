/** Bounds on a JSON value read from a route's configuration (a JSON Schema, an example). */
export interface JsonValueLimits {
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Most values (objects, arrays, strings, numbers, booleans, nulls) in all. */
  maxNodes: number;
  /** Longest string, object key included, in UTF-16 units. */
  maxStringLength: number;
}

export const JSON_VALUE_LIMITS: JsonValueLimits = { maxDepth: 32, maxNodes: 5_000, maxStringLength: 4_096 };

/** Keys that would reach an object's prototype in careless code downstream: refused wherever they appear. */
const POLLUTING_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** One problem of a JSON value, where it is. */
export interface JsonValueIssue {
  path: Array<string | number>;
  message: string;
}

function isPlainRecord(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * What keeps `value` from being a plain, bounded JSON value: no functions, symbols, `undefined`, non-finite
 * numbers, class instances, getters or prototype keys, within `limits`. Stops at the first bound exceeded
 * (the walk is bounded by `maxNodes`, so a hostile value costs little).
 */
export function jsonValueIssues(
  value: unknown,
  limits: JsonValueLimits = JSON_VALUE_LIMITS,
): JsonValueIssue[] {
  const issues: JsonValueIssue[] = [];
  let nodes = 0;
  const seen = new Set<object>();
  const visit = (node: unknown, path: Array<string | number>): boolean => {
    nodes += 1;
    if (nodes > limits.maxNodes) {
      issues.push({ path, message: `more than ${limits.maxNodes} values` });
      return false;
    }
    if (node === null || typeof node === "boolean") return true;
    if (typeof node === "number") {
      if (!Number.isFinite(node)) issues.push({ path, message: "expected a finite number" });
      return true;
    }
    if (typeof node === "string") {
      if (node.length > limits.maxStringLength)
        issues.push({ path, message: `a string longer than ${limits.maxStringLength} characters` });
      return true;
    }
    if (typeof node !== "object") {
      issues.push({ path, message: `expected a JSON value, got ${typeof node}` });
      return true;
    }
    if (path.length >= limits.maxDepth) {
      issues.push({ path, message: `nested deeper than ${limits.maxDepth} levels` });
      return false;
    }
    if (seen.has(node)) {
      issues.push({ path, message: "a value that contains itself" });
      return false;
    }
    seen.add(node);
    const keepGoing = Array.isArray(node) ? visitArray(node, path) : visitRecord(node, path);
    seen.delete(node);
    return keepGoing;
  };
  const visitArray = (node: unknown[], path: Array<string | number>): boolean => {
    for (let index = 0; index < node.length; index++) {
      if (!visit(node[index], [...path, index])) return false;
    }
    return true;
  };
  const visitRecord = (node: object, path: Array<string | number>): boolean => {
    if (!isPlainRecord(node)) {
      issues.push({ path, message: "expected a plain JSON object" });
      return true;
    }
    for (const key of Reflect.ownKeys(node)) {
      if (typeof key === "symbol") {
        issues.push({ path, message: "a symbol key" });
        continue;
      }
      const at = [...path, key];
      if (POLLUTING_KEYS.has(key)) issues.push({ path: at, message: `the key ${JSON.stringify(key)}` });
      else if (key.length > limits.maxStringLength)
        issues.push({ path, message: `a key longer than ${limits.maxStringLength} characters` });
      const descriptor = Object.getOwnPropertyDescriptor(node, key);
      if (descriptor === undefined || !("value" in descriptor)) {
        issues.push({ path: at, message: "an accessor, not a value" });
        continue;
      }
      if (!visit(descriptor.value, at)) return false;
    }
    return true;
  };
  visit(value, []);
  return issues;
}
