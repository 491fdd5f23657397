import { pino, type DestinationStream, type Logger } from "pino";

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

const censor = (value: unknown): string =>
  typeof value === "string" ? `${value.slice(0, 8)}…[redacted ${value.length} chars]` : "[redacted]";

/**
 * pino, JSON lines, with the payment and auth headers redacted wherever a `headers` object is logged.
 * By default on stdout, written asynchronously (lines written while a write is pending go out together);
 * the gateway flushes it when it has drained, and pino flushes it on exit.
 */
export function createGatewayLogger(level: string, destination?: DestinationStream): Logger {
  const paths = REDACTED_HEADERS.flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`]);
  return pino(
    { level, base: { name: "x402-gateway" }, redact: { paths, censor } },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
