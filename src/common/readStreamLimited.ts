import { concatBytes } from "./bytes.js";

/**
 * A Web stream's bytes, counted as they arrive: past `limitBytes` the stream is cancelled and `tooLarge()`
 * thrown, so nobody makes us buffer an unbounded body. A `null` stream is no bytes.
 */
export async function readStreamLimited(
  stream: ReadableStream<Uint8Array> | null,
  limitBytes: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}
