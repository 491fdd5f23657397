import type * as StarknetModule from "starknet";
import type { StarknetRpc } from "../starknet/StarknetRpc.js";
import { StarknetRpcFailureError } from "../starknet/StarknetRpcFailureError.js";
import type { IntentToVerify, SignerBackend, SignerVerdict } from "./SignerBackend.js";
import { SignerUnavailableError } from "./SignerUnavailableError.js";
import { SignerVerdictCache } from "./SignerVerdictCache.js";
import { feltOfIdentity, starknetIntentTypedData } from "./starknetIntentTypedData.js";
import { decodeStarknetSignature } from "./starknetSignatureWords.js";
import { LAYER_TWO_SIGNER_DEFAULTS } from "./layerTwoSignerDefaults.js";
import { verifyStarkKeySignature } from "./verifyStarkKeySignature.js";

/** SNIP-6's answer for a valid signature: the short string `VALID`. */
export const SNIP6_VALID = "0x56414c4944";
export const IS_VALID_SIGNATURE = "is_valid_signature";

export interface LayerTwoSignerOptions {
  /** The SNIP-12 domain's `chainId` (a short string): `SN_MAIN`, `SN_SEPOLIA`, `X402_LOCAL`… */
  chainId?: string;
  /**
   * The Starknet JSON-RPC base URL contract accounts are asked through (`{rpcUrl}/rpc/v0_10`): the
   * recognition node. Without it only direct Stark keys pay; an account's payment is refused 503.
   */
  rpcUrl?: string | undefined;
  timeoutMs?: number;
  cacheTtlMs?: number;
  maxEntries?: number;
  fetch?: typeof fetch;
}

/** What the starknet module gives this backend; loaded on first use (it is heavy). */
type Starknet = typeof StarknetModule;

/**
 * The layer-2 (Starknet) signer: the payer signs the intent as SNIP-12 typed data
 * ({@link starknetIntentTypedData}) bound to its subject. A `starknet-key` subject is a Stark public key
 * (x coordinate): `[r, s]` is checked offline with Stark-curve ECDSA (either point of that x, as Cairo's
 * `check_ecdsa_signature` does). A `starknet-account` subject is a contract account: its SNIP-6
 * `is_valid_signature(hash, signature)` is called through the node and must answer `VALID`. A node that
 * cannot answer is a {@link SignerUnavailableError} (fail closed); verdicts are cached (LRU, TTL) and
 * concurrent checks of one signature share one call.
 */
export class LayerTwoSigner implements SignerBackend {
  readonly name = "LayerTwoSigner";
  readonly signerIds = ["starknet-account", "starknet-key"] as const;
  readonly chainId: string;
  private starknet: Promise<Starknet> | undefined;
  private rpc: Promise<StarknetRpc> | undefined;
  private readonly verdicts: SignerVerdictCache;

  constructor(private readonly options: LayerTwoSignerOptions = {}) {
    this.chainId = options.chainId ?? LAYER_TWO_SIGNER_DEFAULTS.chainId;
    this.verdicts = new SignerVerdictCache({
      maxEntries: options.maxEntries ?? LAYER_TWO_SIGNER_DEFAULTS.maxEntries,
      ttlMs: options.cacheTtlMs ?? LAYER_TWO_SIGNER_DEFAULTS.cacheTtlMs,
    });
    if (options.rpcUrl !== undefined) new URL(options.rpcUrl); // a bad URL fails at start, not per payment
  }

  async verify({ claim, signature }: IntentToVerify): Promise<SignerVerdict> {
    let words: string[];
    try {
      words = decodeStarknetSignature(signature);
    } catch (error) {
      return { valid: false, reason: (error as Error).message };
    }
    const { typedData, ec } = await this.loadStarknet();
    const subject = feltOfIdentity(claim.subject);
    let hash: string;
    try {
      hash = typedData.getMessageHash(starknetIntentTypedData(claim, this.chainId) as never, subject);
    } catch (error) {
      return { valid: false, reason: `the intent is not SNIP-12 typed data: ${(error as Error).message}` };
    }
    if (claim.signer === "starknet-key") {
      if (verifyStarkKeySignature(ec.starkCurve, subject, hash, words)) return { valid: true };
      return { valid: false, reason: "not the Stark key's [r, s] over the intent's SNIP-12 hash" };
    }
    return this.askAccount(subject, hash, words);
  }

  /** `is_valid_signature` calls made, and answers served from the cache. */
  get stats(): { readonly calls: number; readonly cached: number } {
    return this.verdicts.stats;
  }

  private askAccount(account: string, hash: string, words: string[]): Promise<SignerVerdict> {
    const key = `${account}|${hash}|${words.join(",")}`;
    return this.verdicts.answer(key, () => this.callAccount(account, hash, words));
  }

  private async callAccount(account: string, hash: string, words: string[]): Promise<SignerVerdict> {
    const rpc = await this.loadRpc();
    let result: string[];
    try {
      result = await rpc.call(account, IS_VALID_SIGNATURE, [
        hash,
        `0x${words.length.toString(16)}`,
        ...words,
      ]);
    } catch (error) {
      const refusal = accountRefusal(error);
      if (refusal !== undefined) return { valid: false, reason: refusal };
      throw new SignerUnavailableError(
        `the layer-2 node could not check the account's signature: ${(error as Error).message}`,
        { account, node: rpc.endpoint },
        { cause: error },
      );
    }
    if (result.length === 1 && BigInt(result[0]!) === BigInt(SNIP6_VALID)) return { valid: true };
    return { valid: false, reason: `is_valid_signature answered [${result.join(", ")}], not VALID` };
  }

  private loadStarknet(): Promise<Starknet> {
    this.starknet ??= import("starknet");
    return this.starknet;
  }

  private loadRpc(): Promise<StarknetRpc> {
    const { rpcUrl } = this.options;
    if (rpcUrl === undefined) {
      return Promise.reject(
        new SignerUnavailableError(
          "no layer-2 node is configured (recognition.rpcUrl or cbor.layerTwo.rpcUrl): a contract account's signature cannot be checked",
        ),
      );
    }
    this.rpc ??= import("../starknet/StarknetRpc.js").then(
      ({ StarknetRpc }) =>
        new StarknetRpc({
          rpcUrl,
          setting: "cbor.layerTwo.rpcUrl",
          timeoutMs: this.options.timeoutMs ?? LAYER_TWO_SIGNER_DEFAULTS.timeoutMs,
          fetch: this.options.fetch,
        }),
    );
    return this.rpc;
  }
}

/**
 * The node answered, and the answer is "no": no contract there (20), no `is_valid_signature` (21), or
 * the account reverted (40, as accounts do on a bad signature). Anything else means the node could not
 * tell: `undefined`, and the caller fails closed.
 */
function accountRefusal(error: unknown): string | undefined {
  if (!(error instanceof StarknetRpcFailureError) || error.kind !== "rpc") return undefined;
  const { code, rpcMessage } = error.details;
  if (code === 20) return "no contract account at the subject's address";
  if (code === 21) return "the subject's contract has no is_valid_signature (not a SNIP-6 account)";
  if (code === 40) return `the account refused the signature: ${rpcMessage}`;
  return undefined;
}
