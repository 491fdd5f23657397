import { Wallet } from "@ethereumjs/wallet";
import { bytesToHex, getAddress } from "viem";
import { privateKeyToAccount, type LocalAccount } from "viem/accounts";
import { z } from "zod/v4";
import { UnpayableError } from "./errors.js";
import { readOwnerOnlyFile } from "./readOwnerOnlyFile.js";

export interface LoadKeystoreAccountOptions {
  /** Absolute path of the Web3 Secret Storage v3 keystore. */
  keystorePath: string;
  /** Absolute path of the file holding its password (one trailing newline is not part of it). */
  passwordPath: string;
}

const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));

/** The v3 keystores this payer decrypts; bounds keep a hostile file from stalling the KDF. */
const keystoreSchema = z.object({
  version: z.literal(3),
  address: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{40}$/)
    .optional(),
  crypto: z.object({
    cipher: z.literal("aes-128-ctr"),
    cipherparams: z.object({ iv: hex(16) }),
    ciphertext: hex(32),
    mac: hex(32),
    kdf: z.enum(["scrypt", "pbkdf2"]),
    kdfparams: z.union([
      z.object({
        dklen: z.literal(32),
        salt: z.string().regex(/^([0-9a-f]{2}){16,64}$/),
        n: z
          .number()
          .int()
          .min(2)
          .max(2 ** 20)
          .refine((n) => (n & (n - 1)) === 0, "n must be a power of 2"),
        r: z.number().int().min(1).max(32),
        p: z.number().int().min(1).max(16),
      }),
      z.object({
        dklen: z.literal(32),
        salt: z.string().regex(/^([0-9a-f]{2}){16,64}$/),
        c: z.number().int().min(1).max(10_000_000),
        prf: z.literal("hmac-sha256"),
      }),
    ]),
  }),
});

/**
 * Decrypts the private key of a v3 keystore (scrypt or pbkdf2, aes-128-ctr, MAC checked by
 * `@ethereumjs/wallet`): the MCP payer's EVM key, or the payer recorder's Stark key (starkli writes the
 * same format). Refuses a keystore or password file that group or others may read. Errors never carry
 * the key or the password. Also answers the address the keystore declares, if any.
 */
export async function decryptKeystore(
  options: LoadKeystoreAccountOptions,
): Promise<{ privateKey: Uint8Array; declaredAddress: string | undefined }> {
  const keystoreText = await readOwnerOnlyFile(options.keystorePath, "keystore");
  const passwordText = await readOwnerOnlyFile(options.passwordPath, "password");
  const password = passwordText.replace(/\r?\n$/, "");

  let json: unknown;
  try {
    json = JSON.parse(keystoreText);
  } catch {
    throw new UnpayableError(
      "keystore_invalid",
      `${options.keystorePath} is not JSON: expected a v3 keystore`,
    );
  }
  const parsed = keystoreSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : ` (${issue.path.join(".") || "root"}: ${issue.message})`;
    throw new UnpayableError(
      "keystore_invalid",
      `${options.keystorePath} is not a supported v3 keystore: scrypt or pbkdf2 with aes-128-ctr${where}`,
    );
  }

  let wallet: Wallet;
  try {
    wallet = await Wallet.fromV3(parsed.data as Parameters<typeof Wallet.fromV3>[0], password);
  } catch (error) {
    const wrong = error instanceof Error && /passphrase|password/i.test(error.message);
    throw wrong
      ? new UnpayableError(
          "wrong_password",
          `the password in ${options.passwordPath} does not open ${options.keystorePath} (MAC mismatch)`,
        )
      : new UnpayableError("keystore_invalid", `${options.keystorePath} could not be decrypted`);
  }
  return { privateKey: wallet.getPrivateKey(), declaredAddress: parsed.data.address };
}

/** The MCP payer's viem account, from its v3 keystore ({@link decryptKeystore}). */
export async function loadKeystoreAccount(options: LoadKeystoreAccountOptions): Promise<LocalAccount> {
  const { privateKey, declaredAddress: declared } = await decryptKeystore(options);
  const account = privateKeyToAccount(bytesToHex(privateKey));
  if (declared !== undefined && getAddress(declared.replace(/^(0x)?/, "0x")) !== account.address) {
    throw new UnpayableError(
      "keystore_invalid",
      `${options.keystorePath} declares address ${declared} but its key is for ${account.address}`,
    );
  }
  return account;
}
