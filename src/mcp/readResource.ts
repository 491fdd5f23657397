/** A resource as the tool returns it: status, type and a size-capped body. */
export interface ResourceSnapshot {
  status: number;
  contentType: string | null;
  /** The body as UTF-8 text, or base64 when it is binary. */
  body: string;
  encoding: "text" | "base64";
  /** Bytes in `body` (before base64). */
  bytes: number;
  /** True when the body was longer than the cap and was cut. */
  truncated: boolean;
}

/** Default cap on the body returned to the agent, in bytes. */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

const TEXTUAL =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|yaml|x-ndjson)\b)/i;

/** Reads at most `limitBytes` of a response's body, as text when its type is textual and it is valid UTF-8. */
export async function readResource(
  response: Response,
  limitBytes = DEFAULT_BODY_LIMIT_BYTES,
): Promise<ResourceSnapshot> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = response.body?.getReader();
  if (reader !== undefined) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = limitBytes - size;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        size += room;
        truncated = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  }
  const bytes = Buffer.concat(chunks, size);
  const contentType = response.headers.get("content-type");
  const text = contentType === null || TEXTUAL.test(contentType) ? decodeUtf8(bytes, truncated) : undefined;
  return {
    status: response.status,
    contentType,
    body: text ?? bytes.toString("base64"),
    encoding: text === undefined ? "base64" : "text",
    bytes: size,
    truncated,
  };
}

/** UTF-8 text, or undefined when the bytes are not UTF-8 (a cut may split the last character). */
function decodeUtf8(bytes: Buffer, truncated: boolean): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: truncated });
  } catch {
    return undefined;
  }
}
