import { Ajv2020 } from "ajv/dist/2020.js";

/** One reason a body breaks its schema: where (a JSON Pointer into the body) and what. */
export interface BodyProblem {
  path: string;
  message: string;
}

/** Checks a parsed JSON body: `undefined` when it fits, else the first problems (at most {@link MAX_PROBLEMS}). */
export type BodyValidator = (body: unknown) => BodyProblem[] | undefined;

/** How many problems a refusal names: enough to fix a body, never an unbounded list. */
export const MAX_PROBLEMS = 10;

/**
 * One Ajv for every route (JSON Schema 2020-12, the dialect of OpenAPI 3.1). `strict: false` because an
 * OpenAPI schema carries keywords JSON Schema does not know (`example`, `discriminator`, `xml`) and an
 * OpenAPI document's `components` ride along for `$ref`s; `format` stays an annotation, as 2020-12 says.
 */
let shared: Ajv2020 | undefined;
function ajv(): Ajv2020 {
  shared ??= new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: false });
  return shared;
}

/**
 * Compile a route's `requestBody.schema` once, at start-up; throws (with Ajv's reason) a schema that is
 * not one. `root` is the document `$ref`s such as `#/components/schemas/Stake` point into (an OpenAPI
 * document), when the schema came from one.
 */
export function compileBodyValidator(
  schema: Record<string, unknown>,
  root?: Record<string, unknown>,
): BodyValidator {
  const rooted = root === undefined ? schema : { ...schema, components: root.components };
  const validate = ajv().compile(rooted);
  return (body) => {
    if (validate(body)) return undefined;
    return (validate.errors ?? []).slice(0, MAX_PROBLEMS).map((error) => ({
      path: error.instancePath === "" ? "/" : error.instancePath,
      message:
        error.keyword === "additionalProperties"
          ? `must not have property '${String((error.params as { additionalProperty?: unknown }).additionalProperty)}'`
          : (error.message ?? error.keyword),
    }));
  };
}
