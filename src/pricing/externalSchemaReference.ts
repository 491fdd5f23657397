import { JSON_VALUE_LIMITS } from "./jsonValueIssues.js";

/**
 * Where a JSON Schema names something outside itself (a `$ref` or `$id` not starting with `#`), which a
 * facilitator refuses (it would fetch it, or resolve it against an unknown base); undefined when it does not.
 * Looks no deeper than {@link JSON_VALUE_LIMITS} allow (deeper values are refused on their own).
 */
export function externalSchemaReference(
  node: unknown,
  path: Array<string | number> = [],
): Array<string | number> | undefined {
  if (Array.isArray(node) && path.length <= JSON_VALUE_LIMITS.maxDepth) {
    for (let index = 0; index < node.length; index++) {
      const found = externalSchemaReference(node[index], [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== "object" || node === null || path.length > JSON_VALUE_LIMITS.maxDepth) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if ((key === "$ref" || key === "$id") && !(typeof value === "string" && value.startsWith("#")))
      return [...path, key];
    const found = externalSchemaReference(value, [...path, key]);
    if (found) return found;
  }
  return undefined;
}
