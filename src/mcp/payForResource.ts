import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import type { KeyPairSigner } from "@solana/kit";
import { aliasClientScheme } from "../payer/aliasClientScheme.js";
import type { LocalAccount } from "viem/accounts";
import { z } from "zod/v4";
import { insecureTransportProblem } from "../payer/insecureTransportProblem.js";
import { choosePaymentOption } from "./choosePaymentOption.js";
import { PAYER_ENV, UnpayableError } from "./errors.js";
import { isSolanaOption, type OfferOption } from "./parseOfferOption.js";
import type { PayerSettings } from "./parsePayerSettings.js";
import { fetchSameOrigin, RedirectRefused, requestInit, type ResourceRequest } from "./fetchSameOrigin.js";
import { judgePaidAnswer } from "./judgePaidAnswer.js";
import {
  fail,
  messageOf,
  unconfirmed,
  unreachable,
  type PayOutcome,
  type SignedPayment,
} from "./PayOutcome.js";
import { readResource } from "./readResource.js";
import type { SessionBudget } from "./SessionBudget.js";

export interface PayForResourceOptions {
  settings: PayerSettings;
  /** The payer's EVM account, decrypted from the keystore (when one is set). */
  account?: LocalAccount | undefined;
  /** The payer's Solana signer, from the keypair file (when one is set). */
  solanaSigner?: KeyPairSigner | undefined;
  /** This session's spending; shared by every call of the server process. */
  budget: SessionBudget;
  /** The `fetch` to pay through (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** Deadline of the whole exchange (offer, payment, settlement), in ms; default 60 000. */
  timeoutMs?: number;
  /** One line per outcome; never given the key. */
  log?: (line: string) => void;
}

/** Default deadline of one tool call, in ms. */
export const DEFAULT_PAY_TIMEOUT_MS = 60_000;

/** Seconds a signed lifetime may exceed the offer's (the clock ticks between check and signing). */
const CLOCK_SLACK_SECONDS = 5;

const authorizationSchema = z.union([
  z.object({ authorization: z.object({ nonce: z.string(), validBefore: z.string() }) }),
  z.object({ permit2Authorization: z.object({ nonce: z.string(), deadline: z.string() }) }),
]);

/**
 * Sends `request` (default a GET) to `url` (following redirects within its origin); on a 402, pays the
 * first option of the PAYMENT-REQUIRED offer that parses strictly and passes every policy, signed by the
 * official `@x402/evm` exact scheme (`exact-pq` signs the same authorization) or, on Solana, the official
 * `@x402/svm` exact scheme with the keypair file's key, and sends the same request
 * once more with it, to the same URL, following no redirect, over https:// or to loopback (plain HTTP
 * elsewhere only with `allowInsecureHttp`, on a test network). Nothing is signed before the amount is
 * reserved in the session; once signed, every outcome says so. A 4xx or 5xx other than 402 is a failure
 * (`http_error`), not a free resource.
 */
export async function payForResource(
  url: string,
  options: PayForResourceOptions,
  request: ResourceRequest = { method: "GET" },
): Promise<PayOutcome> {
  const { settings, budget } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_PAY_TIMEOUT_MS);
  const where = describeUrl(url);
  const log = options.log ?? (() => {});
  const bodyLimit = settings.maxBodyBytes;

  const invalid = requestProblem(request);
  if (invalid !== undefined) {
    log(`${where}: failed invalid_request`);
    return fail("invalid_request", `${invalid}; nothing was sent`);
  }

  let first: { response: Response; url: string };
  try {
    first = await fetchSameOrigin(fetchImpl, url, request, signal);
  } catch (error) {
    const outcome =
      error instanceof RedirectRefused
        ? fail("redirect_refused", `${error.message}: ${error.location}; nothing was signed`)
        : unreachable(error, url);
    log(`${where}: ${outcome.outcome} ${outcome.code}`);
    return outcome;
  }
  const { response } = first;
  if (response.status !== 402) {
    const failed = response.status >= 400;
    log(`${where}: ${failed ? "failed http_error" : "free"} (${response.status})`);
    let resource;
    try {
      resource = await readResource(response, bodyLimit);
    } catch (error) {
      return unreachable(error, url);
    }
    if (!failed) return { outcome: "free", paid: false, resource };
    return {
      ...fail(
        "http_error",
        `${first.url} answered ${response.status} to ${request.method} without asking for a payment; nothing was signed`,
      ),
      resource,
    };
  }
  // The offer is the PAYMENT-REQUIRED header (x402 V2): the 402 body is never read.
  await response.body?.cancel().catch(() => {});
  const offer = readOffer(response);
  if (offer === undefined) {
    log(`${where}: failed invalid_offer`);
    return fail("invalid_offer", `${url} answered 402 without a readable x402 V2 PAYMENT-REQUIRED header`);
  }

  const choice = choosePaymentOption(offer.accepts, { settings, sessionSpent: budget.spent });
  if ("refusal" in choice) return refuse(choice.refusal, where, log);
  const option = choice.option;
  // TLS is mandatory for a signature, unless the user allowed plain HTTP for test networks.
  const transport = insecureTransportProblem(first.url, option.network, {
    allowInsecureHttp: settings.allowInsecureHttp,
    setting: PAYER_ENV.allowInsecureHttp,
  });
  if (transport !== undefined)
    return refuse(new UnpayableError("insecure_transport", `${transport}; nothing was signed`), where, log);
  // Another call may have spent since the policy ran: reserve atomically, or sign nothing.
  if (!budget.reserve(BigInt(option.amount))) {
    const again = choosePaymentOption([option], { settings, sessionSpent: budget.spent });
    return refuse("refusal" in again ? again.refusal : overSessionCap(option, settings), where, log);
  }

  let signed: SignedPayment;
  let header: string;
  try {
    const payload = await signPayment(options, offer, option);
    signed = describeSigned(payload, option, options, settings);
    header = encodePaymentSignatureHeader(payload);
  } catch (error) {
    budget.release(BigInt(option.amount));
    log(`${where}: failed signing_failed`);
    return fail("signing_failed", `the payment could not be signed: ${messageOf(error)}`);
  }

  // From here the authorization has left: whatever happens, the outcome says what was signed.
  try {
    const paid = await fetchImpl(first.url, requestInit(request, signal, { "PAYMENT-SIGNATURE": header }));
    const outcome = await judgePaidAnswer(paid, signed, first.url, bodyLimit);
    log(
      `${where}: ${outcome.outcome}${"code" in outcome ? ` ${outcome.code}` : ""} ${signed.amount} of ${signed.asset} on ${signed.network} to ${signed.payee}`,
    );
    return outcome;
  } catch (error) {
    const outcome = unconfirmed(signed, error, first.url);
    log(`${where}: paid_unconfirmed ${outcome.code}`);
    return outcome;
  }
}

/** The offer in PAYMENT-REQUIRED, or undefined when there is none or it is not x402 V2. */
function readOffer(response: Response): PaymentRequired | undefined {
  const header = response.headers.get("payment-required");
  if (header === null) return undefined;
  try {
    const offer = decodePaymentRequiredHeader(header) as unknown;
    const shape = z.object({ x402Version: z.literal(2), accepts: z.array(z.unknown()).max(64) }).loose();
    return shape.safeParse(offer).success ? (offer as PaymentRequired) : undefined;
  } catch {
    return undefined;
  }
}

type Wallets = Pick<PayForResourceOptions, "account" | "solanaSigner">;

/**
 * Signs `option` alone with the official exact scheme of its network: `@x402/evm` with the keystore's
 * account, `@x402/svm` with the keypair file's signer (the payer's own policies already ran).
 */
async function signPayment(
  wallets: Wallets & { settings: PayerSettings },
  offer: PaymentRequired,
  option: OfferOption,
): Promise<PaymentPayload> {
  // The payer's own policies replace the client's default-asset allow-list and USD cap.
  const client = new x402Client().setSpendControls(false);
  if (isSolanaOption(option)) {
    if (wallets.solanaSigner === undefined) throw new Error("no Solana keypair file is loaded");
    const rpcUrl = wallets.settings.svmRpcUrl;
    client.register(
      "solana:*",
      new ExactSvmScheme(wallets.solanaSigner, rpcUrl === undefined ? undefined : { rpcUrl }),
    );
  } else {
    if (wallets.account === undefined) throw new Error("no EVM keystore is loaded");
    const exact = new ExactEvmScheme(wallets.account);
    client.register("eip155:*", exact).register("eip155:*", aliasClientScheme(exact, "exact-pq"));
  }
  return client.createPaymentPayload({ ...offer, accepts: [option] });
}

/** What was signed, checked: a lifetime above the offer's (and so above the cap) is never sent. */
function describeSigned(
  payload: PaymentPayload,
  option: OfferOption,
  wallets: Wallets,
  settings: PayerSettings,
): SignedPayment {
  const described = {
    payee: option.payTo,
    amount: option.amount,
    asset: option.asset,
    network: option.network,
  };
  if (isSolanaOption(option)) {
    // A partially signed transaction; it lapses with its recent blockhash, which the client just fetched.
    z.object({ transaction: z.string().min(1) }).parse(payload.payload);
    return { signed: true, payer: wallets.solanaSigner!.address, ...described };
  }
  const parsed = authorizationSchema.parse(payload.payload);
  const { nonce, validBefore } =
    "authorization" in parsed
      ? parsed.authorization
      : { nonce: parsed.permit2Authorization.nonce, validBefore: parsed.permit2Authorization.deadline };
  const latest = Math.floor(Date.now() / 1000) + option.maxTimeoutSeconds + CLOCK_SLACK_SECONDS;
  if (!/^[0-9]{1,20}$/.test(validBefore) || Number(validBefore) > latest)
    throw new Error(
      `the scheme signed a lifetime past ${PAYER_ENV.maxAuthorizationSeconds} (${settings.maxAuthorizationSeconds} s)`,
    );
  return { signed: true, payer: wallets.account!.address, ...described, nonce, validBefore };
}

/** What is wrong with the request itself, before anything is sent. */
function requestProblem(request: ResourceRequest): string | undefined {
  if (request.method === "GET" && request.body !== undefined) return "a GET request has no body";
  if (request.body === undefined && request.contentType !== undefined)
    return "a content type was given without a body";
  return undefined;
}

function refuse(refusal: UnpayableError, where: string, log: (line: string) => void): PayOutcome {
  log(`${where}: unpayable ${refusal.code}`);
  return { outcome: "unpayable", ...refusal.toJSON() };
}

function overSessionCap(option: OfferOption, settings: PayerSettings): UnpayableError {
  return new UnpayableError(
    "over_session_cap",
    `paying ${option.amount} would go over ${PAYER_ENV.maxPerSession} (${settings.maxPerSession})`,
  );
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
