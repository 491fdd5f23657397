import { PAYER_ENV, UnpayableError } from "./errors.js";
import { ETHEREUM_MAINNET, isTestNetwork } from "../protocol/isTestNetwork.js";
import { parseOfferOption, transferMethodOf, type OfferOption } from "./parseOfferOption.js";
import type { PayerSettings } from "./parsePayerSettings.js";

/** The settings a payment is checked against, and what this session has spent so far. */
export interface PaymentPolicy {
  settings: PayerSettings;
  /** Sum of this session's payments, reserved ones included, in smallest units. */
  sessionSpent: bigint;
}

export type PaymentChoice = { option: OfferOption } | { refusal: UnpayableError };

type Check = (option: OfferOption, policy: PaymentPolicy) => UnpayableError | undefined;

/** EVM addresses compare case-insensitively; base58 ones (Solana) exactly. */
const same = (a: string, b: string) =>
  a === b || (a.startsWith("0x") && b.startsWith("0x") && a.toLowerCase() === b.toLowerCase());

/** The policies, in the order they are applied to each option of an offer. */
const CHECKS: Check[] = [
  (option, { settings }) =>
    settings.networks.includes(option.network)
      ? undefined
      : new UnpayableError(
          "network_not_allowed",
          `network ${option.network} is not in ${PAYER_ENV.networks} (${settings.networks.join(",")})`,
        ),
  (option, { settings }) =>
    isTestNetwork(option.network) || settings.mainnetConsent.includes(option.network)
      ? undefined
      : new UnpayableError(
          "mainnet_consent_required",
          `${option.network} is a mainnet (real money): add it to ${PAYER_ENV.mainnetConsent} to allow spending there`,
        ),
  (option, { settings }) =>
    settings.payees.some((payee) => same(payee, option.payTo))
      ? undefined
      : new UnpayableError("payee_not_allowed", `payee ${option.payTo} is not in ${PAYER_ENV.payees}`),
  (option, { settings }) => {
    if (settings.assets === undefined) {
      return option.network === ETHEREUM_MAINNET
        ? new UnpayableError(
            "asset_required",
            `paying on Ethereum mainnet (${ETHEREUM_MAINNET}) needs ${PAYER_ENV.assets} naming the token contracts to pay with`,
          )
        : undefined;
    }
    return settings.assets.some((asset) => same(asset, option.asset))
      ? undefined
      : new UnpayableError("asset_not_allowed", `asset ${option.asset} is not in ${PAYER_ENV.assets}`);
  },
  (option, { settings }) =>
    transferMethodOf(option) !== "permit2" || settings.allowPermit2
      ? undefined
      : new UnpayableError(
          "permit2_not_allowed",
          `the offer asks for a Permit2 transfer, which moves any token approved to Permit2: set ${PAYER_ENV.allowPermit2}=true (with ${PAYER_ENV.assets}) to allow it`,
        ),
  (option, { settings }) =>
    option.maxTimeoutSeconds <= settings.maxAuthorizationSeconds
      ? undefined
      : new UnpayableError(
          "authorization_too_long",
          `the offer asks for an authorization valid ${option.maxTimeoutSeconds} s, above ${PAYER_ENV.maxAuthorizationSeconds} (${settings.maxAuthorizationSeconds} s)`,
        ),
  (option, { settings }) =>
    BigInt(option.amount) <= settings.maxPerPayment
      ? undefined
      : new UnpayableError(
          "over_payment_cap",
          `the price ${option.amount} is above ${PAYER_ENV.maxPerPayment} (${settings.maxPerPayment})`,
        ),
  (option, { settings, sessionSpent }) =>
    sessionSpent + BigInt(option.amount) <= settings.maxPerSession
      ? undefined
      : new UnpayableError(
          "over_session_cap",
          `paying ${option.amount} would bring this session to ${sessionSpent + BigInt(option.amount)}, above ${PAYER_ENV.maxPerSession} (${settings.maxPerSession}); ${sessionSpent} already spent`,
        ),
];

/**
 * The first option of an offer that parses strictly and passes every policy. When none does, the
 * refusal of the option that passed the most checks (the first such option), so the user fixes the
 * closest setting; an option that does not parse passes none.
 */
export function choosePaymentOption(options: readonly unknown[], policy: PaymentPolicy): PaymentChoice {
  let closest: { passed: number; refusal: UnpayableError } | undefined;
  for (const [index, raw] of options.entries()) {
    const parsed = parseOfferOption(raw);
    if ("problem" in parsed) {
      closest ??= {
        passed: -1,
        refusal: new UnpayableError(
          "unsupported_offer",
          `the offer's option ${index + 1}: ${parsed.problem}`,
        ),
      };
      continue;
    }
    const { option } = parsed;
    let passed = 0;
    let refusal: UnpayableError | undefined;
    for (const check of CHECKS) {
      refusal = check(option, policy);
      if (refusal !== undefined) break;
      passed += 1;
    }
    if (refusal === undefined) return { option };
    if (closest === undefined || passed > closest.passed) closest = { passed, refusal };
  }
  return {
    refusal:
      closest?.refusal ??
      new UnpayableError(
        "unsupported_offer",
        "the offer has no option this payer can pay (exact or exact-pq on eip155, exact on solana)",
      ),
  };
}
