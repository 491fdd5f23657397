/** The slice of pino's API the gateway logs through; pino itself fits. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The logger used when none is given: says nothing. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
