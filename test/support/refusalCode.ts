import { decodeCanonical } from "../../src/protocol/cbor/decodeCanonical.js";

/** The catalogue code of a refusal: the `x402-error` header (402), else the body's `error` (JSON or CBOR map). */
export async function refusalCode(response: Response): Promise<string | null> {
  const header = response.headers.get("x402-error");
  if (header !== null) return header;
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("json")) return ((await response.json()) as { error: string }).error;
  if (!type.includes("cbor")) return null;
  const body = decodeCanonical(new Uint8Array(await response.arrayBuffer()));
  return body instanceof Map ? (body.get("error") as string) : null;
}
