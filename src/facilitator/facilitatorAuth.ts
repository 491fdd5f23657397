import { BaseError } from "../common/BaseError.js";
import { z } from "zod/v4";

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name");

/**
 * Per-request auth to the facilitator, minted at each call: `Authorization: Bearer <token>`, the token read
 * from an environment variable when the call is made (not when the config is loaded, as `${NAME}` in
 * `headers` would be), so a process whose environment is updated in place uses the new token at once.
 */
export const facilitatorAuthSchema = z.strictObject({
  /** Environment variable holding the bearer token, read at each call. */
  bearerFromEnv: envName.meta({
    description: "Environment variable holding the bearer token, read at each call.",
  }),
});
export type FacilitatorAuth = z.infer<typeof facilitatorAuthSchema>;

/** An auth header the facilitator could not be given: the call is not made. */
export class FacilitatorAuthError extends BaseError {
  constructor(message: string) {
    super("facilitator_auth_unavailable", message);
  }
}

/** The `auth` setting as a function minting the headers of one call; throws {@link FacilitatorAuthError}. */
export function facilitatorAuthHeaders(auth: FacilitatorAuth): () => Promise<Record<string, string>> {
  const name = auth.bearerFromEnv;
  return async () => {
    const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;
    const token = env?.[name]?.trim();
    if (!token) throw new FacilitatorAuthError(`facilitator auth: the environment variable ${name} is empty`);
    if (/[\r\n]/.test(token)) throw new FacilitatorAuthError(`facilitator auth: ${name} spans several lines`);
    return { authorization: `Bearer ${token}` };
  };
}
