/** A logger that keeps what is logged at `warn` (route function failures, an unreachable ledger) and drops the rest. */
export function warningLogger() {
  const warned: Array<Record<string, unknown>> = [];
  const silent = () => undefined;
  const logger = {
    debug: silent,
    info: silent,
    error: silent,
    warn: (line: Record<string, unknown>) => void warned.push(line),
  };
  return { logger, warned };
}
