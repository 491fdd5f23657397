const HEX = /^0x[0-9a-fA-F]+$/;
/** 2^251 + 17·2^192 + 1, the Starknet field prime. */
const FIELD_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;

/**
 * A hex value as a Starknet FELT string (`^0x(0|[a-fA-F1-9][a-fA-F0-9]{0,62})$`): lower case,
 * no leading zeros. Throws a RangeError on anything that is not hex or does not fit the field.
 */
export function toFelt(hex: string): string {
  if (!HEX.test(hex)) throw new RangeError(`not a hex value: ${JSON.stringify(hex)}`);
  const value = BigInt(hex);
  if (value >= FIELD_PRIME) throw new RangeError(`${hex} does not fit a Starknet field element`);
  return `0x${value.toString(16)}`;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** An EVM address (20 bytes, any case) as the felt `est_ouverte` takes. */
export function evmAddressToFelt(address: string): string {
  if (!EVM_ADDRESS.test(address)) throw new RangeError(`not an EVM address: ${JSON.stringify(address)}`);
  return toFelt(address);
}
