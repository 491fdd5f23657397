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

/** What a log keeps of header `name`'s value: a signature's first 8 characters, a credential's scheme. */
export function censorHeader(name: string, value: unknown): string {
  if (typeof value !== "string") return "[redacted]";
  const kept = CREDENTIALS.has(name.toLowerCase())
    ? (/^[A-Za-z][\w-]* (?=\S)/.exec(value)?.[0] ?? "")
    : value.slice(0, 8);
  return `${kept}…[redacted ${value.length} chars]`;
}

const censor = (value: unknown, path: string[]): string => censorHeader(path.at(-1) ?? "", value);

/** Marks loggers made here (their redaction covers headers only); pino's children inherit it. */
const REDACTS_HEADERS_ONLY = Symbol("x402-gateway logger");

/**
 * The logger for lines whose headers are censored already (the access log's, with {@link censorHeader}):
 * one of {@link createGatewayLogger}'s (or a child of one, as a worker's) without its redaction pass, which
 * cost ~40 % of an access line (docs/benchmarks.md); any other logger as it is, with whatever redaction its
 * owner gave it.
 */
export function forCensoredHeaders(logger: Logger): Logger {
  return (logger as Logger & { [REDACTS_HEADERS_ONLY]?: true })[REDACTS_HEADERS_ONLY]
    ? logger.child({}, { redact: [] })
    : logger;
}

/**
 * pino, JSON lines, with the payment and auth headers redacted wherever a `headers` object is logged.
 * By default on stdout, written asynchronously (lines written while a write is pending go out together);
 * the gateway flushes it when it has drained, and pino flushes it on exit. `LOG_FORMAT=pretty` writes
 * one readable line per entry instead (for a terminal); JSON stays the default for services.
 */
export function createGatewayLogger(level: string, destination?: DestinationStream): Logger {
  const paths = REDACTED_HEADERS.flatMap((name) => [`headers["${name}"]`, `req.headers["${name}"]`]);
  const logger = pino(
    { level, base: { name: "x402-gateway" }, redact: { paths, censor } },
    destination ??
      (logFormatFrom(process.env.LOG_FORMAT) === "pretty"
        ? prettyLogStream()
        : pino.destination({ dest: 1, sync: false })),
  );
  return Object.assign(logger, { [REDACTS_HEADERS_ONLY]: true as const });
}
