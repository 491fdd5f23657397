import { BaseError } from "../common/BaseError.js";
/** The environment variables of `x402-pay-mcp`, exactly as its users set them. */
export const PAYER_ENV = {
  keystorePath: "PAY_MCP_EVM_KEYSTORE_PATH",
  passwordPath: "PAY_MCP_EVM_PASSWORD_PATH",
  networks: "PAY_MCP_EVM_NETWORKS",
  payees: "PAY_MCP_EVM_PAYEES",
  maxPerPayment: "PAY_MCP_EVM_MAX_PER_PAYMENT",
  maxPerSession: "PAY_MCP_EVM_MAX_PER_SESSION",
  mainnetConsent: "PAY_MCP_EVM_I_ACCEPT_MAINNET_SPEND",
  assets: "PAY_MCP_EVM_ASSETS",
  allowPermit2: "PAY_MCP_EVM_ALLOW_PERMIT2",
  maxAuthorizationSeconds: "PAY_MCP_EVM_MAX_AUTHORIZATION_SECONDS",
  maxBodyBytes: "PAY_MCP_EVM_MAX_BODY_BYTES",
  allowInsecureHttp: "PAY_MCP_EVM_ALLOW_INSECURE_HTTP",
  svmKeypairPath: "PAY_MCP_SVM_KEYPAIR_PATH",
  svmRpcUrl: "PAY_MCP_SVM_RPC_URL",
} as const;

export type PayerSetting = (typeof PAYER_ENV)[keyof typeof PAYER_ENV];

/** Why a resource cannot be paid, each with the setting a user changes to allow it (if any). */
export const UNPAYABLE_SETTING = {
  invalid_setting: null,
  keystore_unreadable: PAYER_ENV.keystorePath,
  keystore_invalid: PAYER_ENV.keystorePath,
  keystore_permissions: PAYER_ENV.keystorePath,
  password_unreadable: PAYER_ENV.passwordPath,
  password_permissions: PAYER_ENV.passwordPath,
  wrong_password: PAYER_ENV.passwordPath,
  keypair_unreadable: PAYER_ENV.svmKeypairPath,
  keypair_permissions: PAYER_ENV.svmKeypairPath,
  keypair_invalid: PAYER_ENV.svmKeypairPath,
  network_not_allowed: PAYER_ENV.networks,
  mainnet_consent_required: PAYER_ENV.mainnetConsent,
  payee_not_allowed: PAYER_ENV.payees,
  asset_required: PAYER_ENV.assets,
  asset_not_allowed: PAYER_ENV.assets,
  over_payment_cap: PAYER_ENV.maxPerPayment,
  over_session_cap: PAYER_ENV.maxPerSession,
  permit2_not_allowed: PAYER_ENV.allowPermit2,
  authorization_too_long: PAYER_ENV.maxAuthorizationSeconds,
  insecure_transport: PAYER_ENV.allowInsecureHttp,
  unsupported_offer: null,
} as const satisfies Record<string, PayerSetting | null>;

export type UnpayableCode = keyof typeof UNPAYABLE_SETTING;

/**
 * Nothing was signed: the settings, the keystore or the offer forbid paying. `setting` names the
 * environment variable to change (null when no setting can make the offer payable).
 */
export class UnpayableError extends BaseError {
  declare readonly code: UnpayableCode;
  readonly setting: PayerSetting | null;

  constructor(
    code: UnpayableCode,
    message: string,
    options: { setting?: PayerSetting; cause?: unknown } = {},
  ) {
    super(code, message, { cause: options.cause, docsPath: "docs/mcp-payer.md" });
    this.setting = options.setting ?? UNPAYABLE_SETTING[code];
  }

  toJSON(): { code: UnpayableCode; setting: PayerSetting | null; message: string } {
    return { code: this.code, setting: this.setting, message: this.message };
  }
}

/** What can go wrong on the way once paying was allowed. */
export const FAILED_CODES = [
  "network_error",
  "timeout",
  "invalid_offer",
  "signing_failed",
  "payment_rejected",
  "settlement_failed",
  "server_error",
  "redirect_refused",
  "http_error",
  "invalid_request",
] as const;

export type FailedCode = (typeof FAILED_CODES)[number];

/**
 * Why a `paid_unconfirmed` outcome could not say whether the payment settled: the authorization was
 * handed over, but the answer neither confirmed nor refused it.
 */
export const UNCONFIRMED_CODES = [
  "no_receipt",
  "invalid_receipt",
  "redirected",
  "timeout",
  "network_error",
  "body_unreadable",
] as const;

export type UnconfirmedCode = (typeof UNCONFIRMED_CODES)[number];

/**
 * The server, the network or the facilitator failed the request. `amountCounted` says whether the
 * amount stays counted against the session cap (a payment was sent and may have settled).
 */
export class PaymentFailedError extends BaseError {
  declare readonly code: FailedCode;
  readonly amountCounted: boolean;

  constructor(code: FailedCode, message: string, options: { amountCounted?: boolean; cause?: unknown } = {}) {
    super(code, message, { cause: options.cause, docsPath: "docs/mcp-payer.md" });
    this.amountCounted = options.amountCounted ?? false;
  }

  toJSON(): { code: FailedCode; message: string } {
    return { code: this.code, message: this.message };
  }
}
