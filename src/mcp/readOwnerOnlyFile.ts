import { readFile, stat } from "node:fs/promises";
import { UnpayableError, type UnpayableCode } from "./errors.js";

/** Reads a file only its owner may read (on POSIX systems; Windows has no such mode bits). */
export async function readOwnerOnlyFile(path: string, what: "keystore" | "password"): Promise<string> {
  const codes: Record<"unreadable" | "permissions", UnpayableCode> =
    what === "keystore"
      ? { unreadable: "keystore_unreadable", permissions: "keystore_permissions" }
      : { unreadable: "password_unreadable", permissions: "password_permissions" };
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw new UnpayableError(codes.unreadable, `cannot read the ${what} file ${path}: ${reason(error)}`);
  }
  if (!info.isFile())
    throw new UnpayableError(codes.unreadable, `the ${what} file ${path} is not a regular file`);
  if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
    const mode = (info.mode & 0o777).toString(8).padStart(3, "0");
    throw new UnpayableError(
      codes.permissions,
      `the ${what} file ${path} has mode ${mode}: group and others must have no access (chmod 600 ${path})`,
    );
  }
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new UnpayableError(codes.unreadable, `cannot read the ${what} file ${path}: ${reason(error)}`);
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
