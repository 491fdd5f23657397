import type { Logger } from "../common/Logger.js";
import { silentLogger } from "../common/Logger.js";
import { GatewayError } from "../protocol/errors.js";
import { SIGN_IN_WITH_X } from "../protocol/headers.js";
import type { NonceStore } from "./NonceStore.js";
import { parseSignInHeader } from "./parseSignInHeader.js";
import { SignInNonces } from "./SignInNonces.js";
import type { RecognitionCache, RecognitionStats } from "./RecognitionCache.js";
import { RecognitionError } from "./RecognitionError.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";
import type { AdmitResult, SignInContext, SignInGate } from "./SignInGate.js";
import { verifySignIn, type MessageVerifier } from "./verifySignIn.js";

export interface SiwxSignInGateOptions {
  /** Answers `est_ouverte` for a proven address. */
  cache: RecognitionCache;
  /** Where used nonces are remembered. */
  nonceStore: NonceStore;
  /** Server secret of the stateless nonces; instances that share it accept each other's challenges. */
  nonceSecret?: string;
  /** How long a challenge stays valid, in seconds. */
  signInTtlSeconds?: number;
  /** Clock skew tolerated on `issuedAt` / `notBefore`, in ms. */
  clockSkewMs?: number;
  /** Human-readable line the wallet shows above the message. */
  statement?: string;
  /** Enables EIP-1271 / EIP-6492 (contract wallet) signatures. */
  publicClient?: MessageVerifier;
  logger?: Logger;
  /** Further offer extensions sent beside the challenge (the `starknet-recognition` announcement). */
  announce?: Record<string, unknown>;
}

/** Sign-in outcomes since start. */
export interface SignInStats {
  /** Proven and `est_ouverte == 0x1`: served without payment. */
  recognized: number;
  /** Proven, but `0x0` (or the check failed): sent the offer. */
  notRecognized: number;
  /** `400 invalid_sign_in`. */
  invalid: number;
  /** `401 sign_in_rejected`. */
  rejected: number;
}

/** JSON Schema of the payload the client sends back, published with the challenge. */
const PAYLOAD_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    domain: { type: "string" },
    address: { type: "string" },
    statement: { type: "string" },
    uri: { type: "string", format: "uri" },
    version: { type: "string" },
    chainId: { type: "string" },
    type: { type: "string" },
    nonce: { type: "string" },
    issuedAt: { type: "string", format: "date-time" },
    expirationTime: { type: "string", format: "date-time" },
    notBefore: { type: "string", format: "date-time" },
    requestId: { type: "string" },
    resources: { type: "array", items: { type: "string", format: "uri" } },
    signature: { type: "string" },
  },
  required: ["domain", "address", "uri", "version", "chainId", "type", "nonce", "issuedAt", "signature"],
} as const;

/**
 * The `sign-in-with-x` extension (docs/recognition.md, "The flow") in front of the recognition check: offers
 * a fresh challenge with every 402, and admits a request whose proof is good and whose address the chain
 * recognizes. A failed chain check is "not recognized" (fail closed), never an error to the client.
 */
export class SiwxSignInGate implements SignInGate {
  private readonly cache: RecognitionCache;
  private readonly nonceStore: NonceStore;
  private readonly nonces: SignInNonces;
  private readonly signInTtlMs: number;
  private readonly clockSkewMs: number;
  private readonly statement: string | undefined;
  private readonly publicClient: MessageVerifier | undefined;
  private readonly logger: Logger;
  private readonly announce: Record<string, unknown>;
  private readonly counters: SignInStats = { recognized: 0, notRecognized: 0, invalid: 0, rejected: 0 };

  constructor(options: SiwxSignInGateOptions) {
    this.cache = options.cache;
    this.nonceStore = options.nonceStore;
    this.nonces = new SignInNonces(options.nonceSecret);
    this.signInTtlMs = (options.signInTtlSeconds ?? RECOGNITION_DEFAULTS.signInTtlSeconds) * 1000;
    this.clockSkewMs = options.clockSkewMs ?? RECOGNITION_DEFAULTS.clockSkewMs;
    this.statement = options.statement;
    this.publicClient = options.publicClient;
    this.logger = options.logger ?? silentLogger;
    this.announce = options.announce ?? {};
  }

  async offer(context: SignInContext): Promise<Record<string, unknown>> {
    const chains = [...new Set(context.networks.filter((network) => /^eip155:[0-9]+$/.test(network)))];
    if (chains.length === 0) return {};
    const issuedAt = context.now;
    const nonce = this.nonces.mint(context.host, context.resourceUrl, issuedAt.getTime() + this.signInTtlMs);
    const info: Record<string, unknown> = {
      domain: context.host,
      uri: context.resourceUrl,
      version: "1",
      nonce,
      issuedAt: issuedAt.toISOString(),
      expirationTime: new Date(issuedAt.getTime() + this.signInTtlMs).toISOString(),
      resources: [context.resourceUrl],
    };
    if (this.statement !== undefined) info.statement = this.statement;
    return {
      [SIGN_IN_WITH_X]: {
        info,
        supportedChains: chains.map((chainId) => ({ chainId, type: "eip191" })),
        schema: PAYLOAD_SCHEMA,
      },
      ...this.announce,
    };
  }

  async admit(header: string, context: SignInContext): Promise<AdmitResult> {
    let address: string;
    let claimed = "";
    try {
      const payload = parseSignInHeader(header);
      claimed = payload.address;
      address = await verifySignIn(payload, {
        context,
        nonces: this.nonces,
        nonceStore: this.nonceStore,
        signInTtlMs: this.signInTtlMs,
        clockSkewMs: this.clockSkewMs,
        publicClient: this.publicClient,
      });
    } catch (error) {
      if (error instanceof RecognitionError) {
        // The proof could not be checked (contract wallet, its chain unreachable): fail closed.
        this.counters.notRecognized += 1;
        this.logger.warn(
          { event: "sign_in_unverifiable", address: claimed, err: error.message },
          "sign-in could not be checked; not recognized",
        );
        return { recognized: false, address: claimed };
      }
      if (error instanceof GatewayError) {
        if (error.code === "invalid_sign_in") this.counters.invalid += 1;
        if (error.code === "sign_in_rejected") this.counters.rejected += 1;
        this.logger.info(
          { event: "sign_in_refused", code: error.code, details: error.details },
          error.message,
        );
      }
      throw error;
    }
    const check = await this.cache.check(address);
    if (check.recognized) {
      this.counters.recognized += 1;
      this.logger.info(
        { event: "recognized", address, source: check.source, resource: context.resourceUrl },
        "recognized payer",
      );
    } else {
      this.counters.notRecognized += 1;
      this.logger.debug({ event: "not_recognized", address, source: check.source }, "payer not recognized");
    }
    return check.recognized ? { recognized: true, address } : { recognized: false, address, proven: true };
  }

  /** Sign-in outcomes and the recognition cache's counters, for metrics. */
  stats(): { signIns: SignInStats; recognition: RecognitionStats } {
    return { signIns: { ...this.counters }, recognition: this.cache.stats() };
  }
}
