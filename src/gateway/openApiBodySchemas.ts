import type { UpstreamSettings } from "../config/gatewaySectionSchemas.js";
import { readLimited } from "../facilitator/readLimited.js";
import type { LoadRequestBodySchema } from "../paywall/setup/options.js";
import { isUnderPrefix } from "./createUpstreamProxy.js";

/** Largest OpenAPI document the gateway reads, in bytes. */
const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * `requestBody: { openApi: true }` on the gateway: the operation's JSON request-body schema, from the
 * OpenAPI 3.x document (`openApiPath`) of the upstream that serves the route (longest prefix), read once
 * per upstream at start-up. Rejects with a reason an operator can act on: no `openApiPath`, unreachable,
 * not an OpenAPI document, no such operation, or an operation without a JSON body.
 */
export function openApiBodySchemas(
  upstreams: readonly UpstreamSettings[],
  fetchImpl: typeof fetch,
): LoadRequestBodySchema {
  const documents = new Map<UpstreamSettings, Promise<Json>>();
  const byPrefix = [...upstreams].sort((a, b) => b.prefix.length - a.prefix.length);
  return async ({ method, path }) => {
    const upstream = byPrefix.find((candidate) => isUnderPrefix(path, candidate.prefix));
    if (upstream === undefined) throw new Error(`no upstream serves ${path}`);
    if (upstream.openApiPath === undefined) {
      throw new Error(`the upstream ${upstream.url} (prefix ${upstream.prefix}) has no openApiPath`);
    }
    let document = documents.get(upstream);
    if (document === undefined) {
      document = readDocument(new URL(upstream.openApiPath, upstream.url).href, fetchImpl);
      documents.set(upstream, document);
      document.catch(() => documents.delete(upstream)); // read again at the next attempt
    }
    const root = await document;
    return { schema: bodySchemaOf(root, method, path), root };
  };
}

async function readDocument(url: string, fetchImpl: typeof fetch): Promise<Json> {
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(`the OpenAPI document at ${url} could not be fetched: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`the OpenAPI document at ${url} answered ${response.status}`);
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(await readLimited(response, MAX_DOCUMENT_BYTES)));
  } catch (error) {
    throw new Error(`the OpenAPI document at ${url} is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(document) || typeof document.openapi !== "string" || !/^3\.[01]\./.test(document.openapi))
    throw new Error(`${url} is not an OpenAPI 3.0 or 3.1 document (no "openapi": "3.x.y")`);
  if (!isObject(document.paths)) throw new Error(`the OpenAPI document at ${url} has no paths`);
  return document;
}

/** A path template with its parameters unnamed: `/a/:id`, `/a/[id]` and `/a/{userId}` all read `/a/{}`. */
function shapeOf(path: string): string {
  return path
    .split("/")
    .map((segment) => (/^(:.+|\[.+\]|\{.+\})$/.test(segment) ? "{}" : segment))
    .join("/");
}

/** The JSON schema of `method path`'s request body in an OpenAPI document (one `$ref` to it followed). */
export function bodySchemaOf(root: Json, method: string | undefined, path: string): Json {
  if (method === undefined) throw new Error("a route without a method has no single OpenAPI operation");
  const paths = root.paths as Json;
  const shape = shapeOf(path);
  const item = Object.entries(paths).find(([template]) => shapeOf(template) === shape)?.[1];
  const operation = isObject(item) ? item[method.toLowerCase()] : undefined;
  if (!isObject(operation)) throw new Error(`the OpenAPI document has no operation ${method} ${path}`);
  const body = follow(root, operation.requestBody);
  const content = isObject(body) ? body.content : undefined;
  const jsonType = isObject(content)
    ? Object.keys(content).find((type) =>
        /^application\/(.+\+)?json$/i.test(type.split(";")[0]?.trim() ?? ""),
      )
    : undefined;
  const media = jsonType === undefined ? undefined : (content as Json)[jsonType];
  if (!isObject(media) || !isObject(media.schema))
    throw new Error(`the OpenAPI operation ${method} ${path} takes no JSON request body`);
  return media.schema;
}

/** A `{ $ref: "#/…" }` resolved in the document (a request body is often one); anything else as is. */
function follow(root: Json, value: unknown): unknown {
  if (!isObject(value) || typeof value.$ref !== "string") return value;
  if (!value.$ref.startsWith("#/")) throw new Error(`only local $refs are followed, not ${value.$ref}`);
  let at: unknown = root;
  for (const part of value.$ref.slice(2).split("/")) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    at = isObject(at) && Object.hasOwn(at, key) ? at[key] : undefined;
  }
  if (at === undefined) throw new Error(`${value.$ref} is not in the document`);
  return at;
}
