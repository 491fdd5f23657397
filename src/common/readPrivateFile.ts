import { readFile, stat } from "node:fs/promises";
import { BaseError } from "./BaseError.js";

/** Why a private file (a key, a password, a token) was not read. */
export class PrivateFileError extends BaseError {
  declare readonly code: "file_unreadable" | "file_permissions";

  constructor(code: PrivateFileError["code"], path: string, message: string) {
    super(code, message, { details: { path } });
  }
}

/**
 * Reads a file only its owner may access (on POSIX systems; Windows has no such mode bits): a secret that
 * group or others could read is refused, not used. `what` names it in messages ("keystore file").
 */
export async function readPrivateFile(path: string, what: string): Promise<string> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new PrivateFileError("file_unreadable", path, `cannot read the ${what} ${path}: ${reason(error)}`);
  }
  if (!info.isFile())
    throw new PrivateFileError("file_unreadable", path, `the ${what} ${path} is not a regular file`);
  if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(3, "0");
    throw new PrivateFileError(
      "file_permissions",
      path,
      `the ${what} ${path} has mode ${mode}: group and others must have no access (chmod 600 ${path})`,
    );
  }
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new PrivateFileError("file_unreadable", path, `cannot read the ${what} ${path}: ${reason(error)}`);
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
