import { decodePaymentRequiredHeader } from "@x402/core/http";
import {
  fail,
  isTimeout,
  messageOf,
  settlesUntil,
  type PayOutcome,
  type SignedPayment,
} from "./PayOutcome.js";
import { readReceipt } from "./readReceipt.js";
import { readResource, type ResourceSnapshot } from "./readResource.js";

/** Bytes of a 402 answered to a paid request read for its reason. */
const REASON_BYTES = 4096;

/** The outcome of the answer to the paid request, which is never followed if it redirects. */
export async function judgePaidAnswer(
  response: Response,
  signed: SignedPayment,
  url: string,
  bodyLimit: number,
): Promise<PayOutcome> {
  const counted = `${signed.amount} stays counted against this session: the server holds a signed authorization it could still settle until ${settlesUntil(signed)}`;
  if (response.status >= 300 && response.status <= 399) {
    await response.body?.cancel().catch(() => {});
    const location = response.headers.get("location");
    return {
      outcome: "paid_unconfirmed",
      code: "redirected",
      message: `${url} answered ${response.status}${location === null ? "" : ` to ${location.slice(0, 500)}`} after the payment; a paid request never follows redirects; ${counted}`,
      ...signed,
    };
  }
  const receipt = readReceipt(response, { network: signed.network, payer: signed.payer });
  if (response.status === 402) {
    const reason = await rejection(response);
    return fail(
      "payment_rejected",
      `${url} answered 402 again after the payment (${reason}); ${counted}`,
      signed,
    );
  }
  if (receipt.kind === "refused") {
    await response.body?.cancel().catch(() => {});
    return fail(
      "settlement_failed",
      `the server reports its settlement failed (${receipt.reason}); ${counted}`,
      signed,
    );
  }
  if (receipt.kind === "none" && (response.status < 200 || response.status > 299)) {
    await response.body?.cancel().catch(() => {});
    return fail(
      "server_error",
      `${url} answered ${response.status} after the payment, without a PAYMENT-RESPONSE; ${counted}`,
      signed,
    );
  }
  let resource: ResourceSnapshot;
  try {
    resource = await readResource(response, bodyLimit);
  } catch (error) {
    const settled = receipt.kind === "settled" ? `settled in ${receipt.transaction}, but ` : "";
    return {
      outcome: "paid_unconfirmed",
      code: "body_unreadable",
      message: `${settled}reading the resource failed (${isTimeout(error) ? "timeout" : messageOf(error)}); ${counted}`,
      ...signed,
    };
  }
  if (receipt.kind === "settled")
    return { outcome: "paid", paid: true, resource, transaction: receipt.transaction, ...signed };
  return {
    outcome: "paid_unconfirmed",
    code: receipt.kind === "none" ? "no_receipt" : "invalid_receipt",
    message:
      receipt.kind === "none"
        ? `${url} answered ${response.status} without a PAYMENT-RESPONSE; ${counted}`
        : `${url} answered ${response.status} with a PAYMENT-RESPONSE that cannot be trusted (${receipt.problem}); ${counted}`,
    resource,
    ...signed,
  };
}

/** The server's reason for a 402 after payment: the offer's `error`, and the body's `message` (bounded). */
async function rejection(response: Response): Promise<string> {
  let code: string | undefined;
  const header = response.headers.get("payment-required");
  if (header !== null) {
    try {
      const error = (decodePaymentRequiredHeader(header) as { error?: unknown }).error;
      code = typeof error === "string" ? error : undefined;
    } catch {
      code = undefined;
    }
  }
  let message: string | undefined;
  try {
    const snapshot = await readResource(response, REASON_BYTES);
    const body = JSON.parse(snapshot.encoding === "text" ? snapshot.body : "") as {
      error?: unknown;
      message?: unknown;
    };
    if (typeof body.error === "string") code ??= body.error;
    if (typeof body.message === "string") message = body.message;
  } catch {
    message = undefined;
  }
  return [code ?? "no reason given", message].filter(Boolean).join(": ").slice(0, 500);
}
