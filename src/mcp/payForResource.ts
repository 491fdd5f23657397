import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { LocalAccount } from "viem/accounts";
import { choosePaymentOption } from "./choosePaymentOption.js";
import { PAYER_ENV, PaymentFailedError, UnpayableError, type FailedCode } from "./errors.js";
import type { PayerSettings } from "./parsePayerSettings.js";
import { readResource, type ResourceSnapshot } from "./readResource.js";
import type { SessionBudget } from "./SessionBudget.js";

/** What `pay_for_resource` answers: the structured content of the tool result. */
export type PayOutcome =
  | {
      outcome: "paid";
      paid: true;
      resource: ResourceSnapshot;
      /** Settlement transaction from the server's PAYMENT-RESPONSE; null when it sent none. */
      transaction: string | null;
      payer: string;
      payee: string;
      amount: string;
      asset: string;
      network: string;
    }
  | { outcome: "free"; paid: false; resource: ResourceSnapshot }
  | ({ outcome: "unpayable" } & ReturnType<UnpayableError["toJSON"]>)
  | ({ outcome: "failed" } & ReturnType<PaymentFailedError["toJSON"]>);

export interface PayForResourceOptions {
  settings: PayerSettings;
  /** The payer's account, decrypted from the keystore. */
  account: LocalAccount;
  /** This session's spending; shared by every call of the server process. */
  budget: SessionBudget;
  /** The `fetch` to pay through (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Deadline of the whole exchange (offer, payment, settlement), in ms; default 60 000. */
  timeoutMs?: number;
  /** Cap on the returned body, in bytes; default 256 KiB. */
  bodyLimitBytes?: number;
  /** One line per outcome; never given the key. */
  log?: (line: string) => void;
}

/** Default deadline of one tool call, in ms. */
export const DEFAULT_PAY_TIMEOUT_MS = 60_000;

/**
 * GETs `url`; on a 402, pays the first option of the offer that every policy allows, with the
 * official x402 client (`@x402/fetch` + `@x402/evm` exact). The policies run as an `x402Client`
 * policy, before the scheme is asked to sign, so a refusal signs nothing.
 */
export async function payForResource(url: string, options: PayForResourceOptions): Promise<PayOutcome> {
  const { settings, account, budget } = options;
  const state: {
    refusal?: UnpayableError;
    offerSeen: boolean;
    reserved?: PaymentRequirements;
    signed: boolean;
  } = { offerSeen: false, signed: false };

  const client = new x402Client()
    .register("eip155:*", new ExactEvmScheme(account))
    // The payer's own policies below replace the client's default-asset allow-list and USD cap.
    .setSpendControls(false)
    .registerPolicy((_version, requirements) => {
      const choice = choosePaymentOption(requirements, { settings, sessionSpent: budget.spent });
      if ("refusal" in choice) {
        state.refusal = choice.refusal;
        return [];
      }
      return [choice.option];
    })
    .onBeforePaymentCreation(async ({ selectedRequirements }) => {
      // Another call may have spent since the policy ran: reserve atomically, or sign nothing.
      if (!budget.reserve(BigInt(selectedRequirements.amount))) {
        const choice = choosePaymentOption([selectedRequirements], { settings, sessionSpent: budget.spent });
        const refusal =
          "refusal" in choice
            ? choice.refusal
            : new UnpayableError(
                "over_session_cap",
                `paying ${selectedRequirements.amount} would go over ${PAYER_ENV.maxPerSession} (${settings.maxPerSession})`,
              );
        state.refusal = refusal;
        return { abort: true, reason: refusal.code };
      }
      state.reserved = selectedRequirements;
    })
    .onAfterPaymentCreation(async () => {
      state.signed = true;
    });
  const http = new x402HTTPClient(client).onPaymentRequired(async () => {
    state.offerSeen = true;
  });
  const paying = wrapFetchWithPayment(options.fetch ?? globalThis.fetch, http);
  const where = describeUrl(url);
  const log = options.log ?? (() => {});

  let response: Response;
  try {
    response = await paying(url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_PAY_TIMEOUT_MS),
    });
  } catch (error) {
    const outcome = explainError(error, state, url);
    if (state.reserved !== undefined && !state.signed) budget.release(BigInt(state.reserved.amount));
    log(`${where}: ${outcome.outcome} ${outcome.code}: ${outcome.message}`);
    return outcome;
  }

  if (!state.signed) {
    log(`${where}: free (${response.status})`);
    try {
      return { outcome: "free", paid: false, resource: await readResource(response, options.bodyLimitBytes) };
    } catch (error) {
      return explainError(error, state, url);
    }
  }
  const option = state.reserved!;
  const counted = `${option.amount} stays counted against this session: the server holds a signed authorization it could still settle`;
  const receipt = readReceipt(response);
  if (response.status === 402) {
    const failure = fail(
      "payment_rejected",
      `${url} answered 402 again after the payment (${await rejection(response)}); ${counted}`,
    );
    log(`${where}: failed payment_rejected`);
    return failure;
  }
  if (receipt !== undefined && !receipt.success) {
    const reason =
      [receipt.errorReason, receipt.errorMessage].filter(Boolean).join(": ") || "no reason given";
    log(`${where}: failed settlement_failed`);
    return fail("settlement_failed", `the server reports its settlement failed (${reason}); ${counted}`);
  }
  if (receipt === undefined && (response.status < 200 || response.status > 299)) {
    log(`${where}: failed server_error ${response.status}`);
    return fail(
      "server_error",
      `${url} answered ${response.status} after the payment, without a PAYMENT-RESPONSE; ${counted}`,
    );
  }
  const transaction = receipt?.transaction || null;
  let resource: ResourceSnapshot;
  try {
    resource = await readResource(response, options.bodyLimitBytes);
  } catch (error) {
    const failure = explainError(error, state, url);
    log(`${where}: paid (${transaction ?? "no receipt"}) but the body failed: ${failure.code}`);
    return {
      ...failure,
      message: `paid ${option.amount} of ${option.asset} on ${option.network} (transaction ${transaction ?? "not reported"}), but reading the resource failed: ${failure.message}`,
    };
  }
  log(
    `${where}: paid ${option.amount} of ${option.asset} on ${option.network} to ${option.payTo} (${transaction ?? "no receipt"})`,
  );
  return {
    outcome: "paid",
    paid: true,
    resource,
    transaction,
    payer: receipt?.payer ?? account.address,
    payee: option.payTo,
    amount: option.amount,
    asset: option.asset,
    network: option.network,
  };
}

function fail(code: FailedCode, message: string): PayOutcome {
  return { outcome: "failed", ...new PaymentFailedError(code, message).toJSON() };
}

/** The outcome of a call the official client threw out of. */
function explainError(
  error: unknown,
  state: { refusal?: UnpayableError; offerSeen: boolean; reserved?: PaymentRequirements; signed: boolean },
  url: string,
): Extract<PayOutcome, { outcome: "unpayable" | "failed" }> {
  if (state.refusal !== undefined) return { outcome: "unpayable", ...state.refusal.toJSON() };
  const message = error instanceof Error ? error.message : String(error);
  const afterSigning = state.signed
    ? `; ${state.reserved?.amount} stays counted against this session: the payment was sent and may settle`
    : "";
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return { outcome: "failed", code: "timeout", message: `${url} did not answer in time${afterSigning}` };
  }
  if (!state.offerSeen && message.startsWith("Failed to parse payment requirements")) {
    return {
      outcome: "failed",
      code: "invalid_offer",
      message: `${url} answered 402 with an offer that could not be read`,
    };
  }
  if (state.offerSeen && state.reserved === undefined) {
    const unpayable = new UnpayableError(
      "unsupported_offer",
      `${url} offers no option this payer supports (scheme exact on an eip155 network)`,
    );
    return { outcome: "unpayable", ...unpayable.toJSON() };
  }
  if (state.reserved !== undefined && !state.signed) {
    return {
      outcome: "failed",
      code: "signing_failed",
      message: `the payment could not be signed: ${message}`,
    };
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return {
    outcome: "failed",
    code: "network_error",
    message: `${url} could not be reached (${message}${cause})${afterSigning}`,
  };
}

function readReceipt(response: Response): SettleResponse | undefined {
  const header = response.headers.get("payment-response") ?? response.headers.get("x-payment-response");
  if (header === null) return undefined;
  try {
    return decodePaymentResponseHeader(header);
  } catch {
    return undefined;
  }
}

/** The server's reason for a 402 after payment: the offer's `error`, and the gateway's `message`. */
async function rejection(response: Response): Promise<string> {
  let code: string | undefined;
  const header = response.headers.get("payment-required");
  if (header !== null) {
    try {
      code = decodePaymentRequiredHeader(header).error;
    } catch {
      code = undefined;
    }
  }
  let message: string | undefined;
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === "string") code ??= body.error;
    if (typeof body.message === "string") message = body.message;
  } catch {
    message = undefined;
  }
  return [code ?? "no reason given", message].filter(Boolean).join(": ").slice(0, 500);
}

/** The URL without its query string, for logs (queries may carry tokens). */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
