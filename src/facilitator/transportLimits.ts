/** Connections kept per facilitator origin: enough for a busy instance, bounded so a stall cannot pile up sockets. */
export const MAX_SOCKETS = 256;
/**
 * An idle connection is closed after this long, before a Node facilitator's default 5 s keep-alive
 * timeout could close it under a request that reuses it.
 */
export const IDLE_SOCKET_MS = 4_000;

/** What a transport rejects with when the exchange took longer than `timeoutMs` (named as `fetch`'s). */
export function timeoutError(timeoutMs: number): Error {
  const error = new Error(`no answer within ${timeoutMs} ms`);
  error.name = "TimeoutError";
  return error;
}

/**
 * Wait for this turn's I/O before sending: a facilitator that closed an idle connection (stopped,
 * restarted) has its close read first, so a new connection is opened (refused: nothing sent) rather than
 * the request written into the closed one, which would leave a settlement's outcome unknown.
 */
export const afterPendingIo = () => new Promise<void>((resolve) => setImmediate(resolve));
