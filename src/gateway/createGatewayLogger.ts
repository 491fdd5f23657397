import { pino, type DestinationStream, type Logger } from "pino";
import { logFormatFrom } from "../common/logFormat.js";
import { prettyLogStream } from "../common/prettyLogStream.js";

/** Values of these never reach a log whole: signatures, proofs and credentials are cut to a short prefix. */
export const REDACTED_HEADERS = [
  "payment-signature",
  "payment-response",
  "payment-required",
  "sign-in-with-x",
  "authorization",
  "proxy-authorization",
  "cookie",
];

/** Credentials keep only their scheme (`Bearer`): any prefix of a token is a part of the secret. */
const CREDENTIALS = new Set(["authorization", "proxy-authorization", "cookie"]);

const censor = (value: unknown, path: string[]): string => {
  if (typeof value !== "string") return "[redacted]";
  const name = path.at(-1)?.toLowerCase() ?? "";
  const kept = CREDENTIALS.has(name) ? (/^[A-Za-z][\w-]* (?=\S)/.exec(value)?.[0] ?? "") : value.slice(0, 8);
  return `${kept}…[redacted ${value.length} chars]`;
};

/**
 * pino, JSON lines, with the payment and auth headers redacted wherever a `headers` object is logged.
 * By default on stdout, written asynchronously (lines written while a write is pending go out together);
 * the gateway flushes it when it has drained, and pino flushes it on exit. `LOG_FORMAT=pretty` writes
 * one readable line per entry instead (for a terminal); JSON stays the default for services.
 */
export function createGatewayLogger(level: string, destination?: DestinationStream): Logger {
  const paths = REDACTED_HEADERS.flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`]);
  return pino(
    { level, base: { name: "x402-gateway" }, redact: { paths, censor } },
    destination ??
      (logFormatFrom(process.env.LOG_FORMAT) === "pretty"
        ? prettyLogStream()
        : pino.destination({ dest: 1, sync: false })),
  );
}
