import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_FACILITATOR_REQUEST_BYTES } from "../../protocol/cbor/facilitatorMessages.js";
import { CBOR_MEDIA_TYPE } from "../../protocol/cbor/profile.js";

// The local CBOR facilitator's HTTP plumbing: bounded bodies in, CBOR or JSON out.

/** The request body, or undefined once it passes the facilitator's request limit. */
export async function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FACILITATOR_REQUEST_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A 200 in `application/x402+cbor`. */
export function sendCbor(res: ServerResponse, bytes: Uint8Array): void {
  res.writeHead(200, { "content-type": CBOR_MEDIA_TYPE, "content-length": bytes.length });
  res.end(bytes);
}

/** A JSON answer (`/supported`, and refusals). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Whether a socket's peer address is this machine. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address === "127.0.0.1" || address === "::1" || address === "::ffff:127.0.0.1";
}
