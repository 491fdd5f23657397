import { PrivateFileError, readPrivateFile } from "../common/readPrivateFile.js";
import { UnpayableError, type UnpayableCode } from "./errors.js";

/** Reads a file only its owner may read (on POSIX systems; Windows has no such mode bits). */
export async function readOwnerOnlyFile(path: string, what: "keystore" | "password"): Promise<string> {
  const codes: Record<PrivateFileError["code"], UnpayableCode> =
    what === "keystore"
      ? { file_unreadable: "keystore_unreadable", file_permissions: "keystore_permissions" }
      : { file_unreadable: "password_unreadable", file_permissions: "password_permissions" };
  try {
    return await readPrivateFile(path, `${what} file`);
  } catch (error) {
    if (error instanceof PrivateFileError) throw new UnpayableError(codes[error.code], error.message);
    throw error;
  }
}
