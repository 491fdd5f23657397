import { writeFile } from "node:fs/promises";
import { Wallet } from "@ethereumjs/wallet";
import { getAddress, hexToBytes, type Address, type Hex } from "viem";

export interface WriteKeystoreOptions {
  /** Where to write the keystore; the file must not exist yet. Written with mode 0600. */
  path: string;
  /** The password that encrypts it. */
  password: string;
  /** The key to store; default a new random key. */
  privateKey?: Hex;
  /** Key derivation: `scrypt` (default, n = 262144) or `pbkdf2` (c = 262144, hmac-sha256). */
  kdf?: "scrypt" | "pbkdf2";
  /** Lower work factors make test keystores fast to open; never lower them for real funds. */
  workFactor?: number;
}

/** Encrypts a key into a Web3 Secret Storage v3 keystore file only its owner can read; returns its address. */
export async function writeKeystore(options: WriteKeystoreOptions): Promise<Address> {
  const wallet =
    options.privateKey === undefined
      ? Wallet.generate()
      : Wallet.fromPrivateKey(hexToBytes(options.privateKey));
  const kdf = options.kdf ?? "scrypt";
  const work = options.workFactor ?? 262_144;
  const keystore = await wallet.toV3(
    options.password,
    kdf === "scrypt" ? { kdf, n: work } : { kdf, c: work },
  );
  // `wx`: never overwrite an existing keystore (it may hold the only copy of a funded key).
  await writeFile(options.path, `${JSON.stringify(keystore)}\n`, { mode: 0o600, flag: "wx" });
  return getAddress(wallet.getAddressString());
}
