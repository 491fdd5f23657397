import { bytesToHex, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

/** The mnemonic anvil derives its funded dev accounts from. Public: never hold real funds with it. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** One of anvil's deterministic dev accounts: a public test key, known to everyone. */
export interface DevAccount {
  address: Hex;
  privateKey: Hex;
}

/** Anvil dev account number `index` (0–9 are funded with 10 000 ETH at start-up). */
export function devAccount(index: number): DevAccount {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const privateKey = account.getHdKey().privateKey;
  if (privateKey === null) throw new Error(`no private key for dev account ${index}`);
  return { address: account.address, privateKey: bytesToHex(privateKey) };
}

/** Roles of the local stack, fixed so printed keys stay the same from run to run. */
export const DEV_ACCOUNT_INDEX = { facilitator: 0, payer: 1, payee: 2 } as const;
