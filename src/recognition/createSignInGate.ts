import type { Logger } from "../common/Logger.js";
import { recognitionSettingsSchema, type RecognitionSettings } from "./recognitionSettings.js";
import { recognitionExtension } from "./recognitionExtension.js";
import { MemoryNonceStore } from "./MemoryNonceStore.js";
import type { NonceStore } from "./NonceStore.js";
import { RecognitionCache, type RecognitionObserver } from "./RecognitionCache.js";
import type { RevokedPayers } from "./RevokedPayers.js";
import { SiwxSignInGate } from "./SiwxSignInGate.js";
import { StarknetRecognizer } from "./StarknetRecognizer.js";
import type { MessageVerifier } from "./verifySignIn.js";

export interface SignInGateDeps {
  /** `fetch` for the JSON-RPC calls. */
  fetch?: typeof fetch;
  /** Clock, epoch ms (cache TTLs and in-memory nonces). */
  now?: () => number;
  logger?: Logger;
  /** Where nonces live; default in memory. Pass a RedisNonceStore when the ledger is Redis. */
  nonceStore?: NonceStore;
  /** viem public client (or anything with its `verifyMessage`): enables contract-wallet signatures. */
  publicClient?: MessageVerifier;
  /** Sees cache lookups and RPC calls as they happen (metrics). */
  observer?: RecognitionObserver;
  /** Line shown to the signer above the message. */
  statement?: string;
  /** Revoked payers (refunds): every cache built here is served by it. */
  revokedPayers?: RevokedPayers;
}

/**
 * The sign-in gate for a route (or the global default) configured with `recognition`: SIWX proof,
 * then a cached `est_ouverte(address)` on Starknet. Settings are validated here (throws a ZodError
 * naming the key on a bad value).
 */
export function createSignInGate(settings: RecognitionSettings, deps: SignInGateDeps = {}): SiwxSignInGate {
  const valid = recognitionSettingsSchema.parse(settings);
  const source = new StarknetRecognizer({
    rpcUrl: valid.rpcUrl,
    contract: valid.contract,
    timeoutMs: valid.timeoutMs,
    fetch: deps.fetch,
  });
  const cache = new RecognitionCache({
    source,
    positiveTtlMs: valid.positiveTtlMs,
    negativeTtlMs: valid.negativeTtlMs,
    staleIfErrorMs: valid.staleIfErrorMs,
    maxEntries: valid.maxEntries,
    now: deps.now,
    logger: deps.logger,
    observer: deps.observer,
    revokedPayers: deps.revokedPayers,
  });
  return new SiwxSignInGate({
    cache,
    nonceStore: deps.nonceStore ?? new MemoryNonceStore({ now: deps.now }),
    nonceSecret: valid.signInSecret,
    signInTtlSeconds: valid.signInTtlSeconds,
    statement: deps.statement,
    publicClient: deps.publicClient,
    logger: deps.logger,
    announce: recognitionExtension(valid.announceRpcUrl ?? valid.rpcUrl, valid.contract),
  });
}
