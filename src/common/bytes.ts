/**
 * Bytes, text and base64 without `node:buffer`, so the paywall's core runs on any runtime with the Web
 * platform (Bun, Deno, Workers). Node's global `Buffer` is used when there is one: it is faster there.
 */
interface NodeBuffer {
  from(value: string, encoding: "utf8" | "base64"): Uint8Array & { toString(encoding: "base64"): string };
  from(
    value: ArrayBufferLike,
    byteOffset: number,
    length: number,
  ): Uint8Array & { toString(encoding: "base64"): string };
  byteLength(text: string, encoding: "utf8"): number;
}

const NODE_BUFFER = (globalThis as { Buffer?: NodeBuffer }).Buffer;
const ENCODER = new TextEncoder();

/** The UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): Uint8Array {
  return ENCODER.encode(text);
}

/** How many bytes `text` takes in UTF-8. */
export function utf8ByteLength(text: string): number {
  return NODE_BUFFER !== undefined ? NODE_BUFFER.byteLength(text, "utf8") : webUtf8ByteLength(text);
}

/** Standard padded base64 of `bytes`. */
export function base64OfBytes(bytes: Uint8Array): string {
  return NODE_BUFFER !== undefined
    ? NODE_BUFFER.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")
    : webBase64OfBytes(bytes);
}

/** Standard padded base64 of the UTF-8 bytes of `text`. */
export function base64OfText(text: string): string {
  return NODE_BUFFER !== undefined
    ? NODE_BUFFER.from(text, "utf8").toString("base64")
    : webBase64OfBytes(ENCODER.encode(text));
}

/** {@link utf8ByteLength} with the Web platform only (what runs where Node's `Buffer` is absent). */
export function webUtf8ByteLength(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3; // a lone surrogate is encoded as U+FFFD, three bytes
  }
  return bytes;
}

/** {@link base64OfBytes} with the Web platform only. */
export function webBase64OfBytes(bytes: Uint8Array): string {
  let binary = "";
  // In slices: `String.fromCharCode(...all)` overflows the stack on a large body.
  for (let start = 0; start < bytes.length; start += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
