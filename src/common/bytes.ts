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
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

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

/**
 * The bytes of base64 text already known to be well formed (one alphabet, standard or base64url, with or
 * without padding): Node's decoder reads both alphabets; elsewhere `atob` reads the standard one.
 */
export function bytesOfBase64(text: string): Uint8Array {
  return NODE_BUFFER !== undefined ? NODE_BUFFER.from(text, "base64") : webBytesOfBase64(text);
}

/** {@link bytesOfBase64} with the Web platform only. */
export function webBytesOfBase64(text: string): Uint8Array {
  const standard = text.replace(/[-_=]/g, (char) => (char === "-" ? "+" : char === "_" ? "/" : ""));
  const binary = atob(standard + "=".repeat((4 - (standard.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** The chunks joined into one array of `total` bytes (their summed length). */
export function concatBytes(
  chunks: readonly Uint8Array[],
  total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0),
): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === total) return chunks[0]!;
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
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

/** Lower-case hex of `bytes`. */
export function hexOfBytes(bytes: Uint8Array): string {
  let hex = "";
  for (let index = 0; index < bytes.length; index++) hex += HEX[bytes[index] as number];
  return hex;
}

/** The bytes of an even-length hex string (either case); `undefined` if it is not one. */
export function bytesOfHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = parseInt(hex.slice(2 * index, 2 * index + 2), 16);
  return bytes;
}

/** The bytes of hex text already checked to be hex digits in pairs (config, a matched `%XX` run…). */
export function bytesOfCheckedHex(hex: string): Uint8Array {
  const bytes = bytesOfHex(hex);
  if (bytes === undefined) throw new RangeError("not hex digits in pairs");
  return bytes;
}

/** Bytewise order of two byte strings, a prefix first (as `Buffer.compare`): negative, 0 or positive. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const difference = (a[index] as number) - (b[index] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}
