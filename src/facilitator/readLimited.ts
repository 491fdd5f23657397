import { BaseError } from "../common/BaseError.js";
import { concatBytes } from "../common/bytes.js";

/** A reply body over the byte limit (counted as it streams, before it is all read). */
export class ReplyTooLargeError extends BaseError {
  constructor(readonly limitBytes: number) {
    super("reply_too_large", `reply over ${limitBytes} bytes`, { details: { limitBytes } });
  }
}

/**
 * Reads a response body as bytes, counting them as they arrive and cancelling the stream as soon as
 * it passes `limitBytes`, so a facilitator cannot make the gateway buffer an unbounded reply.
 */
export async function readLimited(response: Response, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > limitBytes) {
    await response.body?.cancel();
    throw new ReplyTooLargeError(limitBytes);
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel();
      throw new ReplyTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, total);
}
