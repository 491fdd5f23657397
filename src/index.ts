export { x402, type X402Middleware, type X402Options } from "./adapters/express.js";
export { X402OptionsError } from "./paywall/setup/X402OptionsError.js";
export { x402Node, type X402NodeHandler, type X402NodeOptions } from "./adapters/node.js";
export { x402Fetch, type FetchNext, type X402FetchHandler, type X402FetchOptions } from "./adapters/fetch.js";
export type { ConnectionOf, FetchConnection } from "./adapters/fetchRequestFacts.js";
export {
  assemblePaymentFlow,
  type AssembledPaymentFlow,
  type SupportReport,
} from "./paywall/setup/assemblePaymentFlow.js";
export type { PaymentFlow } from "./paywall/flow/PaymentFlow.js";
export type { RequestFacts } from "./paywall/request/RequestFacts.js";
export type {
  PaywallOptions,
  PaidEvent,
  ErrorEvent,
  RouteConfig,
  PaywallSettings,
  PaywallPageSettings,
  PaywallProvider,
} from "./paywall/setup/options.js";
export type { DiscoverySettings } from "./pricing/discoverySettings.js";
export type { BazaarDeclaration } from "./pricing/declareBazaar.js";
export type {
  RouteRequestContext,
  RouteRequestAdapter,
  DynamicPrice,
  DynamicPayTo,
  ResponseBody,
  UnpaidResponseBody,
  SettlementFailedResponseBody,
  SettlementFailure,
} from "./pricing/routeFunctions.js";
export type { Logger } from "./common/Logger.js";
export type { PaywallObserver, PaywallOutcome, PaywallRequestInfo } from "./paywall/flow/PaywallObserver.js";
export type {
  PaymentHooks,
  HookRequest,
  VerifyContext,
  SettleContext,
  HookVerifyResponse,
  HookSettleResponse,
  BeforeVerifyHook,
  AfterVerifyHook,
  OnVerifyFailureHook,
  BeforeSettleHook,
  AfterSettleHook,
  OnSettleFailureHook,
  ProtectedRequestHook,
} from "./paywall/flow/PaymentHooks.js";
export { HttpFacilitator, type HttpFacilitatorOptions } from "./facilitator/HttpFacilitator.js";
export type { Facilitator } from "./facilitator/Facilitator.js";
export { fromFacilitatorClient, type FacilitatorClient } from "./facilitator/fromFacilitatorClient.js";
export type { PaymentLedger, ReserveOutcome } from "./ledger/PaymentLedger.js";
export { MemoryPaymentLedger } from "./ledger/MemoryPaymentLedger.js";
export type { SignInGate, SignInContext, AdmitResult } from "./recognition/SignInGate.js";
export { createSignInGate, type SignInGateDeps } from "./recognition/createSignInGate.js";
export { StarknetRecognizer, type StarknetRecognizerOptions } from "./recognition/StarknetRecognizer.js";
export { MemoryNonceStore } from "./recognition/MemoryNonceStore.js";
export { RedisNonceStore } from "./recognition/RedisNonceStore.js";
export type { NonceStore } from "./recognition/NonceStore.js";
export type { RevokedPayers, Revocation } from "./recognition/RevokedPayers.js";
export { MemoryRevokedPayers } from "./recognition/MemoryRevokedPayers.js";
export { RedisRevokedPayers } from "./recognition/RedisRevokedPayers.js";
export type { RevocationRequest } from "./recognition/parseRevocationRequest.js";
export type { RevocationReceipt } from "./recognition/revokePayer.js";
export { RedisPaymentLedger, type RedisPaymentLedgerOptions } from "./ledger/RedisPaymentLedger.js";
export { GatewayError, ERROR_CATALOGUE, ERROR_STATUS, type ErrorCode } from "./protocol/errors.js";
export { encodeBase64Json, decodeBase64Json, Base64JsonError } from "./protocol/base64Json.js";
export type {
  PaymentRequired,
  PaymentRequirements,
  PaymentPayload,
  SettleResponse,
  VerifyResponse,
  SupportedResponse,
} from "./protocol/schemas.js";
export { KNOWN_ASSETS, type KnownAsset } from "./pricing/knownAssets.js";
// application/x402+cbor (docs/cbor.md): the payer side, receipts, and the profile's codecs.
export {
  createCborPayment,
  createMaskedCborPayment,
  type CborPayment,
  type CborPaymentOptions,
  type MaskedCborPaymentOptions,
} from "./payer/createCborPayment.js";
export {
  MASK_TAGS,
  OPEN_FIELDS_MASK,
  completeMask,
  decodeMaskDocument,
  encodeMaskDocument,
  maskRefOf,
  resolveMask,
  type MaskTag,
  type RevelationMask,
} from "./protocol/cbor/masks/RevelationMask.js";
export { STAND_IN_ZK_PROOF_LABEL, standInZkProof } from "./protocol/cbor/masks/standInZkProof.js";
export {
  payCborRoute,
  type PayCborRouteOptions,
  type CborPaidResponse,
  type HumanityClaimSource,
} from "./payer/payCborRoute.js";
export { InsecureTransportError } from "./payer/InsecureTransportError.js";
export {
  checkHumanityClaim,
  issueHumanityClaim,
  type HumanityClaimCheck,
  type HumanityClaimTerms,
  type HumanityRefusal,
} from "./protocol/cbor/checkHumanityClaim.js";
export { verifyReceipt, type ReceiptVerdict } from "./protocol/cbor/verifyReceipt.js";
// Delegation chains (docs/cbor.md, "Delegation"): grants, their scope, the chain check.
export { issueGrant, type GrantTerms } from "./protocol/cbor/issueGrant.js";
export {
  checkDelegationChain,
  DELEGATION_DEFAULTS,
  type CheckedGrant,
  type DelegationLimits,
  type DelegationProblem,
  type DelegationRefusal,
  type DelegationVerdict,
} from "./protocol/cbor/checkDelegationChain.js";
export { formatScope, parseScope, type DelegationScope } from "./protocol/cbor/DelegationScope.js";
export {
  createSigningKey,
  verifySignature,
  payerIdOf,
  type SigningKey,
  type SignatureAlgorithm,
} from "./protocol/cbor/signatures.js";
export { CborError, type CborProblem } from "./protocol/cbor/CborError.js";
export {
  encodePaymentRequest,
  decodePaymentRequest,
  type PaymentRequest,
} from "./protocol/cbor/PaymentRequest.js";
export { decodeErrorBody, type ErrorBody } from "./protocol/cbor/ErrorBody.js";
export {
  encodePaymentSignature,
  decodePaymentSignature,
  type PaymentSignature,
} from "./protocol/cbor/PaymentSignature.js";
export {
  encodeClaim,
  decodeClaim,
  CLAIM_PARTS,
  type Claim,
  type ClaimPart,
  type Quantity,
} from "./protocol/cbor/Claim.js";
export {
  encodeSettlementReceipt,
  decodeSettlementReceipt,
  receiptDigest,
  signReceipt,
  type SettlementReceipt,
  type SignReceiptOptions,
} from "./protocol/cbor/SettlementReceipt.js";
// Receipt operations (docs/cbor.md, "SettlementReceipt"): restriction, aggregation, revocation.
export { restrictReceipt, type RestrictedReceiptWithOpenings } from "./protocol/cbor/restrictReceipt.js";
export {
  verifyRestrictedReceipt,
  openRestrictedReceipt,
  type RestrictedReceiptVerdict,
} from "./protocol/cbor/verifyRestrictedReceipt.js";
export {
  encodeRestrictedReceipt,
  decodeRestrictedReceipt,
  encodeReceiptOpenings,
  decodeReceiptOpenings,
  type RestrictedReceipt,
  type ReceiptOpenings,
  type RevealedPart,
  type HiddenPart,
} from "./protocol/cbor/RestrictedReceipt.js";
export {
  aggregateReceipts,
  verifyAggregate,
  type AggregateReceiptsOptions,
  type AggregateVerdict,
  type VerifyAggregateOptions,
} from "./protocol/cbor/aggregateReceipts.js";
export {
  encodeReceiptAggregate,
  decodeReceiptAggregate,
  type ReceiptAggregate,
  type AggregateTotal,
} from "./protocol/cbor/ReceiptAggregate.js";
export { revokeReceipt, isRevoked, type RevokeReceiptOptions } from "./protocol/cbor/revokeReceipt.js";
export {
  encodeSignedClaim,
  decodeSignedClaim,
  signClaim,
  openSignedClaim,
  type SignedClaim,
  type SignedClaimVerdict,
} from "./protocol/cbor/SignedClaim.js";
export { CBOR_MEDIA_TYPE, CURRENCIES, type Currency } from "./protocol/cbor/profile.js";
export { standInProof, STAND_IN_PROOF_NOTICE } from "./protocol/cbor/standInProof.js";
export type { CborFacilitator } from "./facilitator/CborFacilitator.js";
