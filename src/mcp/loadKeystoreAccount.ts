import { bytesToHex, getAddress } from "viem";
import { privateKeyToAccount, type LocalAccount } from "viem/accounts";
import { decryptKeystore, KeystoreError } from "../common/decryptKeystore.js";
import { UnpayableError } from "./errors.js";

export interface LoadKeystoreAccountOptions {
  /** Absolute path of the Web3 Secret Storage v3 keystore. */
  keystorePath: string;
  /** Absolute path of the file holding its password (one trailing newline is not part of it). */
  passwordPath: string;
}

/** The MCP payer's viem account, from its v3 keystore ({@link decryptKeystore}). */
export async function loadKeystoreAccount(options: LoadKeystoreAccountOptions): Promise<LocalAccount> {
  let opened: Awaited<ReturnType<typeof decryptKeystore>>;
  try {
    opened = await decryptKeystore(options);
  } catch (error) {
    if (error instanceof KeystoreError) throw new UnpayableError(error.code, error.message);
    throw error;
  }
  const { privateKey, declaredAddress: declared } = opened;
  const account = privateKeyToAccount(bytesToHex(privateKey));
  if (declared !== undefined && getAddress(declared.replace(/^(0x)?/, "0x")) !== account.address) {
    throw new UnpayableError(
      "keystore_invalid",
      `${options.keystorePath} declares address ${declared} but its key is for ${account.address}`,
    );
  }
  return account;
}
