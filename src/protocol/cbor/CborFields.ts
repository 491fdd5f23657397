import { CborError } from "./CborError.js";
import { CborTag, type CborMap, type CborValue } from "./CborValue.js";
import { decodeCanonical, type DecodeOptions } from "./decodeCanonical.js";

/**
 * Hand-checked reading of one CBOR map of the profile: each field is read once with its expected
 * type; {@link CborFields.done} then refuses any key that was not read. Errors name `what.key`.
 */
export class CborFields {
  private readonly seen = new Set<string>();
  private readonly map: CborMap;

  /** Decode `bytes` as one canonical CBOR map (refused at its first byte when it is not one), to read. */
  static decode(
    bytes: Uint8Array,
    what: string,
    options: Pick<DecodeOptions, "maxBytes" | "maxItems"> = {},
  ): CborFields {
    return new CborFields(decodeCanonical(bytes, { ...options, expect: "map", what }), what);
  }

  constructor(
    value: CborValue,
    private readonly what: string,
  ) {
    if (!(value instanceof Map)) throw new CborError("wrong_type", "expected a map", what);
    this.map = value;
  }

  text(key: string): string {
    return this.required(key, "text", (value) => (typeof value === "string" ? value : undefined));
  }

  optionalText(key: string): string | undefined {
    return this.optional(key, () => this.text(key));
  }

  bool(key: string): boolean {
    return this.required(key, "a bool", (value) => (typeof value === "boolean" ? value : undefined));
  }

  uint(key: string): bigint {
    return this.required(key, "an unsigned integer", asUint);
  }

  bytes(key: string): Uint8Array {
    return this.required(key, "a byte string", (value) => (value instanceof Uint8Array ? value : undefined));
  }

  optionalBytes(key: string): Uint8Array | undefined {
    return this.optional(key, () => this.bytes(key));
  }

  bytesArray(key: string): Uint8Array[] {
    return this.required(key, "an array of byte strings", (value) =>
      Array.isArray(value) && value.every((item) => item instanceof Uint8Array)
        ? (value as Uint8Array[])
        : undefined,
    );
  }

  optionalBytesArray(key: string): Uint8Array[] | undefined {
    return this.optional(key, () => this.bytesArray(key));
  }

  /** A value of any CBOR type, for a caller that checks it itself. */
  any(key: string): CborValue {
    return this.required(key, "a value", (value) => value);
  }

  /** Tag 0 date-time text, as a Date. */
  dateTime(key: string): Date {
    return this.required(key, "a tag 0 date-time", (value) =>
      value instanceof CborTag && value.tag === 0 && typeof value.value === "string"
        ? new Date(value.value)
        : undefined,
    );
  }

  /** The one allowed integer value (e.g. `x402Version: 2`). */
  constant(key: string, expected: number): void {
    const value = this.uint(key);
    if (value !== BigInt(expected)) {
      throw new CborError("wrong_value", `expected ${expected}, got ${value}`, `${this.what}.${key}`);
    }
  }

  /** Refuse every key no reader asked for. */
  done(): void {
    for (const key of this.map.keys()) {
      if (!this.seen.has(key))
        throw new CborError("unknown_key", `unknown key ${JSON.stringify(key)}`, this.what);
    }
  }

  private required<T>(key: string, type: string, cast: (value: CborValue) => T | undefined): T {
    this.seen.add(key);
    if (!this.map.has(key)) throw new CborError("missing_key", "required", `${this.what}.${key}`);
    const value = cast(this.map.get(key) as CborValue);
    if (value === undefined) throw new CborError("wrong_type", `expected ${type}`, `${this.what}.${key}`);
    return value;
  }

  /** `read()` when `key` is present (marks it read either way). */
  optional<T>(key: string, read: () => T): T | undefined {
    this.seen.add(key);
    return this.map.has(key) ? read() : undefined;
  }
}

export function asUint(value: CborValue): bigint | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "bigint" && value >= 0n) return value;
  return undefined;
}
