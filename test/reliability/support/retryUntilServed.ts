import { sleep } from "../../../reliability/support/redisProcesses.js";
import { ask, paid, type Answer } from "./faultLog.js";

/**
 * Sends `header` until it is served, as a payer who keeps its payment would: a refusal that says "retry"
 * (409 in progress, 503 with Retry-After, or a load balancer's 502/503 for a gateway gone) is retried after
 * its Retry-After (at most 1 s), until `withinMs`; any other answer is returned. Every answer is pushed to
 * `attempts`.
 */
export async function retryUntilServed(
  url: string,
  header: string,
  attempts: Answer[],
  withinMs: number,
): Promise<Answer> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const answer = await ask(url, paid(header));
    attempts.push(answer);
    const retry =
      (answer.status === 409 && answer.code === "payment_in_progress") ||
      (answer.status === 503 && answer.code === "ledger_unavailable") ||
      ((answer.status === 502 || answer.status === 503 || answer.status === 0) && answer.code === undefined);
    if (!retry || Date.now() > deadline) return answer;
    await sleep(Math.min(1_000, Number(answer.retryAfter ?? "0.2") * 1000));
  }
}
