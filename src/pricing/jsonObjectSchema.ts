import { z } from "zod/v4";
import { jsonValueIssues } from "./jsonValueIssues.js";

/**
 * A JSON object read from configuration (a JSON Schema, an example), checked on the value as given (before
 * zod copies it, which would drop a `__proto__` key silently): plain JSON within {@link jsonValueIssues}'s bounds.
 */
export const jsonObjectSchema = z
  .custom<Record<string, unknown>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    "expected a JSON object",
  )
  .superRefine((value, ctx) => {
    for (const issue of jsonValueIssues(value)) {
      ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    }
  })
  .meta({ type: "object" });
