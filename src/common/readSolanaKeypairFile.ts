import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { BaseError } from "./BaseError.js";
import { PrivateFileError, readPrivateFile } from "./readPrivateFile.js";

/** Why a Solana keypair file was not used. */
export class SolanaKeypairError extends BaseError {
  declare readonly code: "keypair_unreadable" | "keypair_permissions" | "keypair_invalid";

  constructor(code: SolanaKeypairError["code"], path: string, message: string) {
    super(code, message, { details: { path } });
  }
}

/** Longest keypair file read: 64 numbers of at most 3 digits, commas, brackets and generous whitespace. */
const MAX_KEYPAIR_FILE_CHARS = 4096;

/**
 * The signer of a Solana CLI keypair file (a JSON array of the 64 secret-key bytes: the 32-byte seed, then
 * its public key), read only if its owner alone may access it ({@link readPrivateFile}). A file whose public
 * half is not the seed's key is refused. Messages name the file, never its content.
 */
export async function readSolanaKeypairFile(path: string): Promise<KeyPairSigner> {
  let text: string;
  try {
    text = await readPrivateFile(path, "Solana keypair file");
  } catch (error) {
    if (error instanceof PrivateFileError)
      throw new SolanaKeypairError(
        error.code === "file_permissions" ? "keypair_permissions" : "keypair_unreadable",
        path,
        error.message,
      );
    throw error;
  }
  const invalid = (why: string) =>
    new SolanaKeypairError(
      "keypair_invalid",
      path,
      `${path}: expected a Solana keypair file (a JSON array of 64 bytes): ${why}`,
    );
  if (text.length > MAX_KEYPAIR_FILE_CHARS) throw invalid(`longer than ${MAX_KEYPAIR_FILE_CHARS} characters`);
  let bytes: unknown;
  try {
    bytes = JSON.parse(text);
  } catch {
    throw invalid("not JSON");
  }
  if (!Array.isArray(bytes)) throw invalid("not an array");
  if (bytes.length !== 64) throw invalid(`${bytes.length} entries`);
  if (!bytes.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) < 256))
    throw invalid("an entry is not an integer from 0 to 255");
  try {
    return await createKeyPairSignerFromBytes(Uint8Array.from(bytes as number[]));
  } catch {
    throw invalid("its last 32 bytes are not the public key of its first 32");
  }
}
