import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Hex } from "viem";
import { PAYER_ENV, UnpayableError } from "./errors.js";
import { readOwnerOnlyFile } from "./readOwnerOnlyFile.js";
import { writeKeystore } from "./writeKeystore.js";

export const KEYSTORE_USAGE = `Usage: x402-pay-mcp keystore create --keystore <file> --password-file <file> [--import-key] [--kdf scrypt|pbkdf2]

Writes a Web3 Secret Storage v3 keystore (mode 0600, never over an existing file) for the payer.
  --keystore       where to write the keystore (must not exist)
  --password-file  the password: read from this file if it exists (it must be mode 0600; one trailing
                   newline is not part of the password), else a random one is written there (mode 0600)
  --import-key     read the private key (0x + 64 hex digits) from standard input instead of making a
                   new random key; the key is never printed
  --kdf            scrypt (default, n = 262144) or pbkdf2 (c = 262144)
  --help           this text

Prints the payer's address and the two absolute paths to put in ${PAYER_ENV.keystorePath} and
${PAYER_ENV.passwordPath}. Exit status: 0 when written, 1 on an error, 2 on a usage error.`;

export interface KeystoreCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Standard input, read whole (only with --import-key). */
  readStdin: () => Promise<string>;
}

/** `x402-pay-mcp keystore create …`; resolves the exit status. */
export async function runKeystoreCommand(argv: string[], io: KeystoreCommandIo): Promise<number> {
  const usage = (message: string) => {
    io.stderr.write(`x402-pay-mcp keystore: ${message}\n\n${KEYSTORE_USAGE}\n`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        keystore: { type: "string" },
        "password-file": { type: "string" },
        "import-key": { type: "boolean" },
        kdf: { type: "string", default: "scrypt" },
        help: { type: "boolean" },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${KEYSTORE_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "create")
    return usage("the only subcommand is `create`");
  if (values.keystore === undefined) return usage("--keystore is required");
  if (values["password-file"] === undefined) return usage("--password-file is required");
  const kdf = values.kdf;
  if (kdf !== "scrypt" && kdf !== "pbkdf2") return usage("--kdf must be scrypt or pbkdf2");
  const keystorePath = resolve(values.keystore);
  const passwordPath = resolve(values["password-file"]);

  let privateKey: Hex | undefined;
  if (values["import-key"]) {
    const text = (await io.readStdin()).trim();
    if (!/^0x[0-9a-fA-F]{64}$/.test(text)) {
      io.stderr.write("x402-pay-mcp keystore: standard input is not a private key (0x + 64 hex digits)\n");
      return 1;
    }
    privateKey = text as Hex;
  }

  try {
    // Checked first so the user does not wait for the key derivation to learn it (`wx` still guards).
    if (existsSync(keystorePath)) throw Object.assign(new Error(keystorePath), { code: "EEXIST" });
    const password = await passwordFor(passwordPath);
    const address = await withProgress(io.stderr, kdf, () =>
      writeKeystore({ path: keystorePath, password, privateKey, kdf }),
    );
    io.stdout.write(
      `address ${address}\n${PAYER_ENV.keystorePath}=${keystorePath}\n${PAYER_ENV.passwordPath}=${passwordPath}\n`,
    );
    return 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === "EEXIST"
        ? `${keystorePath} already exists: keystores are never overwritten`
        : error instanceof Error
          ? error.message
          : String(error);
    io.stderr.write(`x402-pay-mcp keystore: ${message}\n`);
    return 1;
  }
}

/** Seconds between two progress dots while the key derivation runs. */
const PROGRESS_EVERY_MS = 1000;

/**
 * Runs `work` (the key derivation, about 20 s for scrypt n = 262144) with a line on stderr saying so
 * and a dot each second, so the command does not look hung. The derivation yields to the event loop.
 */
async function withProgress<T>(
  stderr: KeystoreCommandIo["stderr"],
  kdf: "scrypt" | "pbkdf2",
  work: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  stderr.write(`x402-pay-mcp keystore: encrypting with ${kdf} (262144 rounds; about 20 s on a laptop) `);
  const timer = setInterval(() => stderr.write("."), PROGRESS_EVERY_MS);
  try {
    const result = await work();
    stderr.write(` done in ${Math.round((Date.now() - started) / 1000)} s\n`);
    return result;
  } catch (error) {
    stderr.write(" failed\n");
    throw error;
  } finally {
    clearInterval(timer);
  }
}

/** The password in `path` (owner-only), or a new random one written there with mode 0600. */
async function passwordFor(path: string): Promise<string> {
  try {
    return (await readOwnerOnlyFile(path, "password")).replace(/\r?\n$/, "");
  } catch (error) {
    if (!(
      error instanceof UnpayableError &&
      error.code === "password_unreadable" &&
      /ENOENT/.test(error.message)
    ))
      throw error;
  }
  const password = randomBytes(32).toString("base64url");
  await writeFile(path, `${password}\n`, { mode: 0o600, flag: "wx" });
  return password;
}
