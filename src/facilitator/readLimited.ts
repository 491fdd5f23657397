import { BaseError } from "../common/BaseError.js";
import { readStreamLimited } from "../common/readStreamLimited.js";

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
  return readStreamLimited(response.body, limitBytes, () => new ReplyTooLargeError(limitBytes));
}
