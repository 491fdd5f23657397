import type { z } from "zod/v4";
import { InvalidRequestError } from "./errors.js";

/**
 * Validate one part of a request (`body`, `query` or `params`) against its schema. Any violation is an
 * {@link InvalidRequestError} naming the fields; unknown fields are violations too.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: "body" | "query" | "params",
): z.output<S> {
  if (
    part === "body" &&
    (value === undefined || value === null || typeof value !== "object" || Array.isArray(value))
  ) {
    throw new InvalidRequestError("The request body must be a JSON object (Content-Type: application/json)", {
      issues: [{ field: "body", message: "expected a JSON object" }],
    });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return { field: issue.keys.join(", "), message: `unknown field${issue.keys.length > 1 ? "s" : ""}` };
    }
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : part;
    return { field, message: issue.message };
  });
  const summary = issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  throw new InvalidRequestError(`Invalid ${part}: ${summary}`, { part, issues });
}
