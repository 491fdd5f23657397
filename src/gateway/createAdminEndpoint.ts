import type { IncomingMessage } from "node:http";
import type { Logger } from "pino";
import { bearerTokenCheck } from "../common/bearerTokenCheck.js";
import { headerOf, splitUrl } from "../paywall/request/requestParts.js";
import { sendError } from "../paywall/responses/respond.js";
import { lenientReadings } from "../pricing/lenientReadings.js";
import { GatewayError } from "../protocol/errors.js";
import type { Middleware } from "./composeMiddleware.js";
import {
  MAX_SIGNED_REVOCATION_CHARS,
  type RevocationRequest,
} from "../recognition/parseRevocationRequest.js";
import type { RevocationReceipt } from "../recognition/revokePayer.js";

/**
 * Largest admin request body, in bytes: a payer, a short reason and at most a signed revocation of
 * {@link MAX_SIGNED_REVOCATION_CHARS} base64 characters (ML-DSA-65 keys and signatures are large).
 */
export const ADMIN_MAX_BODY_BYTES = MAX_SIGNED_REVOCATION_CHARS + 4 * 1024;

export interface AdminEndpointOptions {
  /** Where it lives (`admin.path`): everything under it is answered here, never forwarded. */
  path: string;
  /** The bearer token (`admin.token`). */
  token: string;
  /** Revoke a payer: the paywall's `revoke`. */
  revoke(request: RevocationRequest): Promise<RevocationReceipt>;
  /** The client's address, for the log of a refused request (the gateway reads it through `trustProxy`). */
  clientAddress(req: IncomingMessage): string | undefined;
  logger: Logger;
}

/**
 * The operator's endpoint, mounted after path normalisation: `POST {path}/revocations` with
 * `Authorization: Bearer <token>` and `{ "payer": "0x…", "reason"?, "revocation"? }` revokes a payer's recognition.
 * The token is checked first (constant time), before anything else is read; nothing under `path`,
 * nor any path a lenient server could read as under it, reaches the paywall or an upstream.
 */
export function createAdminEndpoint(options: AdminEndpointOptions): Middleware {
  const base = options.path.toLowerCase();
  const revocations = `${base}/revocations`;
  const tokenMatches = bearerTokenCheck(options.token);
  const under = (path: string) => {
    const lower = path.toLowerCase();
    return lower === base || lower.startsWith(`${base}/`);
  };
  const authorized = (req: IncomingMessage): boolean => tokenMatches(headerOf(req, "authorization"));

  return async (req, res, next) => {
    const { pathname } = splitUrl(req.url ?? "/");
    if (!under(pathname)) {
      const readings = lenientReadings(pathname);
      if (readings !== undefined && ![...readings].some(under)) return next();
      return refuse(
        req,
        res,
        new GatewayError("invalid_path", "the path could be read as the admin endpoint's", {
          details: { reason: "admin_path_reading" },
        }),
      );
    }
    if (!authorized(req)) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="x402-gateway admin"');
      options.logger.warn(
        { event: "admin_unauthorized", path: pathname, ip: options.clientAddress(req) },
        "admin request without a valid token",
      );
      return refuse(
        req,
        res,
        new GatewayError(
          "admin_unauthorized",
          "the admin endpoint needs Authorization: Bearer <admin.token>",
        ),
      );
    }
    if (pathname.toLowerCase() !== revocations) {
      return refuse(req, res, new GatewayError("not_found", `no admin endpoint at ${pathname}`));
    }
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      return refuse(
        req,
        res,
        new GatewayError("method_not_allowed", `${req.method} is not allowed here: POST a revocation`),
      );
    }
    const mediaType = (headerOf(req, "content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (mediaType !== "application/json") {
      return refuse(
        req,
        res,
        new GatewayError("unsupported_media_type", "send the revocation as application/json", {
          details: { contentType: mediaType ?? "" },
        }),
      );
    }
    let request: unknown;
    try {
      request = parseJson(await readBody(req, ADMIN_MAX_BODY_BYTES));
    } catch (error) {
      if (error instanceof GatewayError) return refuse(req, res, error);
      throw error;
    }
    try {
      const receipt = await options.revoke(request as RevocationRequest);
      const body = JSON.stringify({ ...receipt, until: new Date(receipt.until).toISOString() });
      res.writeHead(200, {
        "Cache-Control": "no-store",
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": Buffer.byteLength(body),
      });
      res.end(body);
    } catch (error) {
      if (error instanceof GatewayError) return sendError(res, error);
      throw error;
    }
  };
}

/** Answer with `error`; a body still unread is not drained, so the connection closes after the answer. */
function refuse(req: IncomingMessage, res: Parameters<typeof sendError>[0], error: GatewayError): void {
  if (!req.complete && (req.headers["content-length"] !== undefined || req.headers["transfer-encoding"])) {
    res.setHeader("Connection", "close");
  }
  sendError(res, error);
}

/** The whole body, refused past `maxBytes` (declared or streamed) with `413 payload_too_large`. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new GatewayError("payload_too_large", `the request body is over ${maxBytes} bytes`, {
      details: { limit: maxBytes },
    });
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) {
        cleanup();
        req.pause();
        return reject(tooLarge());
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(body)) as unknown;
  } catch {
    throw new GatewayError("invalid_revocation", "the body is not UTF-8 JSON", {
      details: { problems: ["(root): expected a JSON object { payer, reason?, revocation? }"] },
    });
  }
}
