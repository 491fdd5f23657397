export type { AdmitResult, SignInContext, SignInGate } from "./SignInGate.js";
export { createSignInGate, type SignInGateDeps } from "./createSignInGate.js";
export { createSignInGateResolver, type SignInGateResolver } from "./createSignInGateResolver.js";
export { SiwxSignInGate, type SiwxSignInGateOptions, type SignInStats } from "./SiwxSignInGate.js";
export {
  StarknetRecognizer,
  EST_OUVERTE,
  type StarknetRecognizerOptions,
  type RpcExchange,
} from "./StarknetRecognizer.js";
export {
  RecognitionCache,
  type RecognitionCacheOptions,
  type RecognitionCheck,
  type RecognitionObserver,
  type RecognitionSource,
  type RecognitionStats,
} from "./RecognitionCache.js";
export { RecognitionError, type RecognitionErrorKind } from "./RecognitionError.js";
export type { Recognizer } from "./Recognizer.js";
export type { NonceStore } from "./NonceStore.js";
export { MemoryNonceStore, type MemoryNonceStoreOptions } from "./MemoryNonceStore.js";
export { RedisNonceStore, type RedisNonceStoreOptions } from "./RedisNonceStore.js";
export { buildSiweMessage, type SiweFields } from "./buildSiweMessage.js";
export { parseSignInHeader, signInPayloadSchema, type SignInPayload } from "./parseSignInHeader.js";
export {
  verifySignIn,
  type MessageVerifier,
  type SignInRejection,
  type VerifySignInOptions,
} from "./verifySignIn.js";
export { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";
export { evmAddressToFelt, toFelt } from "./toFelt.js";
export {
  recognitionExtension,
  STARKNET_RECOGNITION,
  type RecognitionExtension,
  type RecognitionInfo,
} from "./recognitionExtension.js";
export type { RevokedPayers, Revocation, RevocationListener, RevocationObserver } from "./RevokedPayers.js";
export { MemoryRevokedPayers, type MemoryRevokedPayersOptions } from "./MemoryRevokedPayers.js";
export { RedisRevokedPayers, type RedisRevokedPayersOptions } from "./RedisRevokedPayers.js";
export { RevocationUnavailableError } from "./RevocationUnavailableError.js";
export { parseRevocationRequest, type RevocationRequest } from "./parseRevocationRequest.js";
export { revokePayer, type RevocationReceipt } from "./revokePayer.js";
export { REVOCATION_DEFAULTS, type RevocationSettings } from "./revocationSettings.js";
