import { getAddressDecoder, getAddressEncoder, getProgramDerivedAddress, type Address } from "@solana/kit";

/** The SPL Token program (the classic one USDC lives under). */
export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
/** The Token-2022 program. */
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address;
/** The Associated Token Account program: a wallet's token account for a mint is derived from it. */
export const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;

/** Byte sizes of the SPL Token program's account layouts. */
export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;

/** An SPL mint's fields the local engine writes and reads. */
export interface MintState {
  mintAuthority: Address | null;
  supply: bigint;
  decimals: number;
}

/** An SPL token account's fields the local engine writes and reads. */
export interface TokenAccountState {
  mint: Address;
  owner: Address;
  amount: bigint;
}

const addresses = getAddressEncoder();
const addressDecoder = getAddressDecoder();

/** The associated token account of `owner` for `mint` under `tokenProgram`, as every wallet derives it. */
export async function associatedTokenAddress(
  owner: Address,
  mint: Address,
  tokenProgram: Address = TOKEN_PROGRAM,
): Promise<Address> {
  const [address] = await getProgramDerivedAddress({
    programAddress: ASSOCIATED_TOKEN_PROGRAM,
    seeds: [addresses.encode(owner), addresses.encode(tokenProgram), addresses.encode(mint)],
  });
  return address;
}

/** A mint account's data in the SPL layout (82 bytes, initialized, no freeze authority). */
export function encodeMint(mint: MintState): Uint8Array {
  const data = new Uint8Array(MINT_SIZE);
  const view = new DataView(data.buffer);
  if (mint.mintAuthority !== null) {
    view.setUint32(0, 1, true);
    data.set(addresses.encode(mint.mintAuthority), 4);
  }
  view.setBigUint64(36, mint.supply, true);
  data[44] = mint.decimals;
  data[45] = 1;
  return data;
}

/** A token account's data in the SPL layout (165 bytes, initialized, no delegate, not native). */
export function encodeTokenAccount(account: TokenAccountState): Uint8Array {
  const data = new Uint8Array(TOKEN_ACCOUNT_SIZE);
  const view = new DataView(data.buffer);
  data.set(addresses.encode(account.mint), 0);
  data.set(addresses.encode(account.owner), 32);
  view.setBigUint64(64, account.amount, true);
  data[108] = 1;
  return data;
}

/** The decimals of a mint account's data, or undefined when it is not one. */
export function decodeMintDecimals(data: Uint8Array): number | undefined {
  return data.length >= MINT_SIZE && data[45] === 1 ? data[44] : undefined;
}

/** The fields of a token account's data, or undefined when it is not one. */
export function decodeTokenAccount(data: Uint8Array): TokenAccountState | undefined {
  if (data.length < TOKEN_ACCOUNT_SIZE || data[108] === 0) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: addressDecoder.decode(data.subarray(0, 32)),
    owner: addressDecoder.decode(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
  };
}
