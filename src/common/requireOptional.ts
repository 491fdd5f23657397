import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * Loads an optional dependency only when the feature that needs it starts, so users of the other
 * parts never install it. Throws an error naming the package to install when it is missing.
 */
export function requireOptional<T>(name: string, neededBy: string): T {
  try {
    return require(name) as T;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") {
      throw new Error(`${neededBy} needs the optional package ${name}: run \`npm install ${name}\``, {
        cause: error,
      });
    }
    throw error;
  }
}
