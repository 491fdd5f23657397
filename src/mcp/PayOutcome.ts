import { PaymentFailedError, type FailedCode, type UnconfirmedCode, type UnpayableError } from "./errors.js";
import type { ResourceSnapshot } from "./readResource.js";

/** The authorization handed to the server: once it left, every outcome carries it. */
export interface SignedPayment {
  /** An authorization for `amount` left the wallet; it counts against the session cap. */
  signed: true;
  payer: string;
  payee: string;
  amount: string;
  asset: string;
  network: string;
  /** The authorization's nonce (EIP-3009 bytes32, or the Permit2 nonce), to look it up on chain; none on Solana. */
  nonce?: string;
  /**
   * Unix time (s) after which the authorization can no longer settle; none on Solana, where the transfer
   * lapses with its recent blockhash (about a minute).
   */
  validBefore?: string;
}

/** Until when a signed payment could still settle, for messages. */
export function settlesUntil(signed: SignedPayment): string {
  return signed.validBefore ?? "its recent blockhash expires (about a minute)";
}

/** What `pay_for_resource` answers: the structured content of the tool result. */
export type PayOutcome =
  | ({
      outcome: "paid";
      paid: true;
      resource: ResourceSnapshot;
      /** Settlement transaction from the server's PAYMENT-RESPONSE. */
      transaction: string;
    } & SignedPayment)
  | ({
      /** Signed and sent, but the answer neither confirms nor refuses the settlement. */
      outcome: "paid_unconfirmed";
      code: UnconfirmedCode;
      message: string;
      resource?: ResourceSnapshot;
    } & SignedPayment)
  | { outcome: "free"; paid: false; resource: ResourceSnapshot }
  | ({ outcome: "unpayable" } & ReturnType<UnpayableError["toJSON"]>)
  | ({
      outcome: "failed";
      /** What the server answered, for `http_error` (a 4xx or 5xx without a payment asked). */
      resource?: ResourceSnapshot;
    } & ReturnType<PaymentFailedError["toJSON"]> &
      Partial<SignedPayment>);

export type Failed = Extract<PayOutcome, { outcome: "failed" }>;

/** A refusal after (or without) signing: what was signed, when it was, stays in the outcome. */
export function fail(code: FailedCode, message: string, signed?: SignedPayment): Failed {
  return { outcome: "failed", ...new PaymentFailedError(code, message).toJSON(), ...signed };
}

/** A request that threw before any payment was signed. */
export function unreachable(error: unknown, url: string): Failed {
  if (isTimeout(error))
    return { outcome: "failed", code: "timeout", message: `${url} did not answer in time` };
  return {
    outcome: "failed",
    code: "network_error",
    message: `${url} could not be reached (${messageOf(error)})`,
  };
}

/** A paid request that threw: the authorization left, so the amount stays counted. */
export function unconfirmed(
  signed: SignedPayment,
  error: unknown,
  url: string,
): Extract<PayOutcome, { outcome: "paid_unconfirmed" }> {
  const counted = `${signed.amount} stays counted against this session: the payment was sent and may settle until ${settlesUntil(signed)}`;
  return isTimeout(error)
    ? {
        outcome: "paid_unconfirmed",
        code: "timeout",
        message: `${url} did not answer in time; ${counted}`,
        ...signed,
      }
    : {
        outcome: "paid_unconfirmed",
        code: "network_error",
        message: `${url} failed after the payment was sent (${messageOf(error)}); ${counted}`,
        ...signed,
      };
}

export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

export function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${message}${cause}`.slice(0, 500);
}
