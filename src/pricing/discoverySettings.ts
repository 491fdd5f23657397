import { z } from "zod/v4";
import { externalSchemaReference } from "./externalSchemaReference.js";
import { jsonObjectSchema } from "./jsonObjectSchema.js";

/** The body encodings a Bazaar declaration names (`info.input.bodyType`). */
export const DISCOVERY_BODY_TYPES = ["json", "form-data", "text"] as const;

/** What the route answers, for the Bazaar declaration's `info.output`. */
export const discoveryOutputSchema = z.strictObject({
  /** An example of the JSON object the route answers (`info.output.example`). */
  example: jsonObjectSchema
    .optional()
    .meta({ description: "An example of the JSON object the route answers (`info.output.example`)." }),
  /** JSON Schema of that answer (needs `example`): merged into the declaration's schema of `output.example`. */
  schema: jsonObjectSchema.optional().meta({
    description:
      "JSON Schema of that answer (needs `example`): merged into the declaration's schema of `output.example`.",
  }),
});

/**
 * A route's Bazaar discovery declaration, as `declareDiscoveryExtension` of `@x402/extensions/bazaar` takes it
 * (HTTP): the offer then carries `extensions.bazaar = { info, schema }`, its method filled from the request.
 */
export const discoverySchema = z
  .strictObject({
    /** For a POST/PUT/PATCH route: how the body is encoded (`json`, `form-data`, `text`); absent for GET/HEAD/DELETE. */
    bodyType: z.enum(DISCOVERY_BODY_TYPES).optional().meta({
      description:
        "For a POST/PUT/PATCH route: how the body is encoded (`json`, `form-data`, `text`); absent for GET/HEAD/DELETE.",
    }),
    /** An example input: the query parameters (GET/HEAD/DELETE) or the body (with `bodyType`). */
    input: jsonObjectSchema.optional().meta({
      description: "An example input: the query parameters (GET/HEAD/DELETE) or the body (with `bodyType`).",
    }),
    /** JSON Schema of that input (`properties`, `required`…); no `$ref`/`$id` outside itself. */
    inputSchema: jsonObjectSchema.optional().meta({
      description: "JSON Schema of that input (`properties`, `required`…); no `$ref`/`$id` outside itself.",
    }),
    /** Example path parameters (`{ city: "paris" }` for `/weather/:city`); a route's `:params` fill them per request. */
    pathParams: jsonObjectSchema.optional().meta({
      description:
        'Example path parameters (`{ city: "paris" }` for `/weather/:city`); a route\'s `:params` fill them per request.',
    }),
    /** JSON Schema of the path parameters. */
    pathParamsSchema: jsonObjectSchema
      .optional()
      .meta({ description: "JSON Schema of the path parameters." }),
    /** What the route answers: `{ example, schema }`. */
    output: discoveryOutputSchema
      .optional()
      .meta({ description: "What the route answers: `{ example, schema }`." }),
  })
  .superRefine((discovery, ctx) => {
    if (discovery.output?.schema !== undefined && discovery.output.example === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["output", "schema"],
        message: "`output.schema` describes `output.example`: give the example too",
      });
    for (const field of ["inputSchema", "pathParamsSchema"] as const) {
      const at = externalSchemaReference(discovery[field]);
      if (at)
        ctx.addIssue({ code: "custom", path: [field, ...at], message: "a reference outside the schema" });
    }
    const at = externalSchemaReference(discovery.output?.schema);
    if (at)
      ctx.addIssue({
        code: "custom",
        path: ["output", "schema", ...at],
        message: "a reference outside the schema",
      });
  });
export type DiscoverySettings = z.infer<typeof discoverySchema>;
