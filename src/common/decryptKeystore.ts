import { Wallet } from "@ethereumjs/wallet";
import { z } from "zod/v4";
import { BaseError } from "./BaseError.js";
import { PrivateFileError, readPrivateFile } from "./readPrivateFile.js";

/** A v3 keystore and the file holding its password (one trailing newline is not part of it). */
export interface KeystoreFiles {
  keystorePath: string;
  passwordPath: string;
}

/** Why a keystore was not opened; the codes are the MCP payer's (it passes them on as they are). */
export type KeystoreErrorCode =
  | "keystore_unreadable"
  | "keystore_permissions"
  | "keystore_invalid"
  | "password_unreadable"
  | "password_permissions"
  | "wrong_password";

export class KeystoreError extends BaseError {
  declare readonly code: KeystoreErrorCode;

  constructor(code: KeystoreErrorCode, message: string) {
    super(code, message);
  }
}

/** Reads a keystore or password file only its owner may read (on POSIX systems). */
async function readSecret(path: string, what: "keystore" | "password"): Promise<string> {
  try {
    return await readPrivateFile(path, `${what} file`);
  } catch (error) {
    if (!(error instanceof PrivateFileError)) throw error;
    const kind = error.code === "file_permissions" ? "permissions" : "unreadable";
    throw new KeystoreError(`${what}_${kind}`, error.message);
  }
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
  options: KeystoreFiles,
): Promise<{ privateKey: Uint8Array; declaredAddress: string | undefined }> {
  const keystoreText = await readSecret(options.keystorePath, "keystore");
  const passwordText = await readSecret(options.passwordPath, "password");
  const password = passwordText.replace(/\r?\n$/, "");

  let json: unknown;
  try {
    json = JSON.parse(keystoreText);
  } catch {
    throw new KeystoreError(
      "keystore_invalid",
      `${options.keystorePath} is not JSON: expected a v3 keystore`,
    );
  }
  const parsed = keystoreSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? "" : ` (${issue.path.join(".") || "root"}: ${issue.message})`;
    throw new KeystoreError(
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
      ? new KeystoreError(
          "wrong_password",
          `the password in ${options.passwordPath} does not open ${options.keystorePath} (MAC mismatch)`,
        )
      : new KeystoreError("keystore_invalid", `${options.keystorePath} could not be decrypted`);
  }
  return { privateKey: wallet.getPrivateKey(), declaredAddress: parsed.data.address };
}
