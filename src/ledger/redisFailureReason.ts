/**
 * A Redis failure in a word anyone may see: `timeout` (no answer in time), `error` (Redis answered with
 * an error: LOADING, READONLY, NOAUTH…), `unreachable` (no connection). Never the message, which may
 * name a host.
 */
export function redisFailureReason(error: unknown): "unreachable" | "timeout" | "error" {
  if ((error as Error).name === "ReplyError") return "error";
  return /timed out|within \d+ ms/i.test((error as Error).message ?? "") ? "timeout" : "unreachable";
}
