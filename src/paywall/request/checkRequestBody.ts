import type { BodyProblem, BodyValidator } from "../../pricing/compileBodyValidator.js";
import { GatewayError } from "../../protocol/errors.js";
import type { RequestFacts } from "./RequestFacts.js";

/** Why a body was refused, in `details.reason`. */
export type BodyRefusal = "missing" | "content_type" | "not_json" | "schema" | "unreadable";

/** `400 invalid_request_body`: nothing was offered, reserved or settled. */
function refuse(reason: BodyRefusal, message: string, errors?: BodyProblem[]): GatewayError {
  return new GatewayError("invalid_request_body", message, {
    details: errors === undefined ? { reason } : { reason, errors },
  });
}

/** `application/json`, or any `…/…+json`, parameters aside. */
function isJsonType(contentType: string | undefined): boolean {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return essence === "application/json" || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * A route's `requestBody` check, before anything is offered, reserved or settled. The body is what a parser
 * that ran first left (`parsedBody`: a value is checked as is, text or bytes are parsed), else read through
 * the adapter (kept for the handler) up to `maxBytes`. It must be JSON (by its `Content-Type`) and fit the
 * route's schema; throws `invalid_request_body` (or `payload_too_large`) otherwise.
 */
export async function checkRequestBody(
  req: RequestFacts,
  validate: BodyValidator,
  maxBytes: number,
): Promise<void> {
  const body = await bodyOf(req, maxBytes);
  let problems: BodyProblem[] | undefined;
  try {
    problems = validate(body);
  } catch {
    // A body nested deeper than a recursive schema's check can follow (the stack ran out).
    throw refuse("schema", "the request body could not be checked against this route's schema");
  }
  if (problems !== undefined) {
    const first = problems[0];
    const where = first === undefined ? "" : `: ${first.path} ${first.message}`;
    throw refuse("schema", `the request body does not fit this route's schema${where}`, problems);
  }
}

async function bodyOf(req: RequestFacts, maxBytes: number): Promise<unknown> {
  const parsed = req.parsedBody;
  // `{}` is also what Express 4's body-parser leaves when the body was not its type: read the body then.
  const empty = typeof parsed === "object" && parsed !== null && isEmptyPlain(parsed);
  if (parsed !== undefined && !empty) {
    if (typeof parsed === "string") return parseJson(req, new TextEncoder().encode(parsed));
    if (parsed instanceof Uint8Array) return parseJson(req, parsed);
    return parsed;
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = await req.readBody?.(maxBytes);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw refuse("unreadable", `the request body could not be read: ${(error as Error).message}`);
  }
  if (bytes !== undefined) return parseJson(req, bytes);
  if (empty) return parsed;
  throw refuse("unreadable", "the request body was read before the paywall, and no parser left it to check");
}

/** `{}` left by a parser that found no body of its type (Express 4's body-parser): read the body instead. */
function isEmptyPlain(value: object): boolean {
  return Object.getPrototypeOf(value) === Object.prototype && Object.keys(value).length === 0;
}

function parseJson(req: RequestFacts, bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw refuse("missing", "this route needs a JSON request body");
  if (!isJsonType(req.headers["content-type"])) {
    throw refuse("content_type", "the request body must be sent as Content-Type: application/json");
  }
  try {
    return JSON.parse(strictUtf8.decode(bytes));
  } catch {
    throw refuse("not_json", "the request body is not valid JSON (UTF-8)");
  }
}
