import { z } from "zod/v4";
import { compileBodyValidator } from "./compileBodyValidator.js";

/**
 * A route's `requestBody`: the JSON Schema its body must fit (`schema`, and the document its `$ref`s point
 * into, `root`), or `{ openApi: true }`, which the gateway replaces at start-up with the operation's schema
 * from its upstream's OpenAPI document.
 */
export const requestBodySchema = z.union([
  z.strictObject({
    /** JSON Schema 2020-12 of the body (parsed as JSON). */
    schema: z.record(z.string(), z.unknown()).meta({ description: "JSON Schema 2020-12 of the JSON body." }),
    /** The document the schema's `$ref`s point into (an OpenAPI document's `components`); set by the gateway. */
    root: z.record(z.string(), z.unknown()).optional().meta({
      description: "The document the schema's `$ref`s point into (an OpenAPI document); set by the gateway.",
    }),
  }),
  z.strictObject({
    /** Gateway: the schema of this operation in the `openApi` document of the upstream that serves it. */
    openApi: z.literal(true).meta({
      description:
        "Gateway: the schema of this operation in the `openApi` document of the upstream that serves the route.",
    }),
  }),
]);

export type RequestBodySettings = z.infer<typeof requestBodySchema>;

/** A `schema` that Ajv cannot compile, said where the config wrote it. */
export function requestBodyIssues(
  settings: RequestBodySettings | undefined,
): Array<{ path: string[]; message: string }> {
  if (settings === undefined || !("schema" in settings)) return [];
  try {
    compileBodyValidator(settings.schema, settings.root);
    return [];
  } catch (error) {
    return [{ path: ["schema"], message: `not a usable JSON Schema: ${(error as Error).message}` }];
  }
}
