import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * A check of `Authorization: Bearer <token>` against `token`, in constant time: digests have one length,
 * so the comparison takes the same time whatever was sent.
 */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer +([^\s]+) *$/i.exec(authorization ?? "");
    return match !== null && timingSafeEqual(digest(match[1] as string), expected);
  };
}
