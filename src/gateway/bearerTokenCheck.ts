import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { headerOf } from "../paywall/requestParts.js";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Whether a request carries `Authorization: Bearer <token>`, compared in constant time. */
export function bearerTokenCheck(token: string): (req: IncomingMessage) => boolean {
  const expected = digest(token);
  return (req) => {
    const match = /^Bearer +([^\s]+) *$/i.exec(headerOf(req, "authorization") ?? "");
    // Digests have one length, so the comparison takes the same time whatever was sent.
    return match !== null && timingSafeEqual(digest(match[1] as string), expected);
  };
}
