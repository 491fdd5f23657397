import { ChainResponseError } from "../errors.js";

/**
 * Reads a Cairo-serialized result felt by felt: `Option` is a variant index (0 = Some, 1 = None)
 * followed by the value, a u256 is `[low, high]`, a `Span` is its length followed by the items.
 * Anything short, long or out of range is a {@link ChainResponseError} naming the entry point.
 */
export class FeltReader {
  private index = 0;
  private readonly felts: bigint[];

  constructor(
    readonly entrypoint: string,
    result: readonly string[],
  ) {
    try {
      this.felts = result.map((felt) => BigInt(felt));
    } catch (cause) {
      throw new ChainResponseError(`${entrypoint} returned something that is not felts`, { result }, cause);
    }
  }

  felt(): bigint {
    const value = this.felts[this.index];
    if (value === undefined) throw this.malformed("is too short");
    this.index++;
    return value;
  }

  /** An integer that must fit in `bits` bits (u16, u64, u128). */
  uint(bits: number): bigint {
    const value = this.felt();
    if (value >= 2n ** BigInt(bits)) throw this.malformed(`has a value wider than u${bits}`);
    return value;
  }

  u256(): bigint {
    const low = this.uint(128);
    return low + (this.uint(128) << 128n);
  }

  bool(): boolean {
    const value = this.felt();
    if (value > 1n) throw this.malformed("has a bool that is neither 0 nor 1");
    return value === 1n;
  }

  option<T>(read: () => T): T | null {
    const variant = this.felt();
    if (variant === 0n) return read();
    if (variant === 1n) return null;
    throw this.malformed(`has an Option variant ${variant}`);
  }

  span<T>(read: () => T): T[] {
    const length = this.uint(32);
    if (length > BigInt(this.felts.length - this.index))
      throw this.malformed("has a span longer than the result");
    return Array.from({ length: Number(length) }, read);
  }

  /** Asserts every felt was read. */
  end(): void {
    if (this.index !== this.felts.length) throw this.malformed("is longer than expected");
  }

  private malformed(what: string): ChainResponseError {
    return new ChainResponseError(`${this.entrypoint} result ${what}`, {
      entrypoint: this.entrypoint,
      result: this.felts.map((f) => "0x" + f.toString(16)),
    });
  }
}
