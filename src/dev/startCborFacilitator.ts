import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { bearerTokenCheck } from "../common/bearerTokenCheck.js";
import { CborAccountBook } from "./cborFacilitator/CborAccountBook.js";
import { isLoopbackAddress, readBody, sendCbor, sendJson } from "./cborFacilitator/facilitatorHttp.js";
import { supportedDocument } from "./cborFacilitator/supportedDocument.js";
import { LocalCborFacilitator, type LocalRefundOutcome } from "./cborFacilitator/LocalCborFacilitator.js";
import {
  MAX_FACILITATOR_REQUEST_BYTES,
  decodeCborFacilitatorRequest,
  decodeCborFundRequest,
  decodeCborRefundRequest,
  encodeCborRevocationList,
  encodeCborSettleResponse,
  encodeCborSettlementStatus,
  encodeCborVerifyResponse,
  parseIntentDigest,
} from "../protocol/cbor/facilitatorMessages.js";
import { CBOR_MEDIA_TYPE, type Currency } from "../protocol/cbor/profile.js";
import { createSigningKey, payerIdOf, type SigningKey } from "../protocol/cbor/signatures.js";
import { STAND_IN_PROOF_NOTICE } from "../protocol/cbor/standInProof.js";
import { deriveMaskHpkeKey } from "../protocol/cbor/masks/maskHpke.js";
import { closeServer, listenOnLoopback } from "./loopbackServer.js";
import { CBOR_DEV_BALANCES } from "./cborDevPayers.js";
import type { CborValue } from "../protocol/cbor/CborValue.js";
import { encodeCanonical } from "../protocol/cbor/encodeCanonical.js";
import { payerIdOfClaim } from "../protocol/cbor/payerIdOfClaim.js";
import { decodeClaim } from "../protocol/cbor/Claim.js";
import { decodeSettlementReceipt } from "../protocol/cbor/SettlementReceipt.js";
import type { SignerId } from "../protocol/cbor/profile.js";
import type { LayerTwoSignerOptions } from "../signers/LayerTwoSigner.js";
import { SignerRegistry } from "../signers/SignerRegistry.js";
import { SignerUnavailableError } from "../signers/SignerUnavailableError.js";
import { decodeHumanityRequest, demoHumanityIssuer, issueDemoHumanityClaim } from "./demoHumanityIssuer.js";

export interface CborPayerAccount {
  /** The subject: a ServiceAuthSigner key, or the identity `signer` names (e.g. a Starknet account). */
  publicKey: Uint8Array;
  signer?: Exclude<SignerId, "service-auth"> | undefined;
  /** Opening balance per currency, in the smallest unit. */
  balances: Partial<Record<Currency, bigint>>;
}

export interface StartCborFacilitatorOptions {
  /** SQLite file of the books (default in memory: balances then last as long as the process). */
  file?: string;
  /** Payer accounts opened at start (an account that exists keeps its balance). */
  accounts?: CborPayerAccount[];
  port?: number;
  now?: () => number;
  log?: (line: string) => void;
  /**
   * The LayerTwoSigner's chain id and node (contract accounts' `is_valid_signature`); without a node only
   * direct Stark keys pay, and an account's payment is answered 503.
   */
  layerTwo?: LayerTwoSignerOptions;
  /** The EvmSigner's EIP-712 chain id (default 31337, anvil's: the local stack's EVM chain). */
  evmChainId?: number;
  /** That chain's JSON-RPC URL: EIP-1271 contract wallets are asked through it (without it only EOAs pay). */
  evmRpcUrl?: string;
  /** The key of the DEMO humanity issuer at `POST /humanity` (default the public demo key). */
  humanityIssuer?: SigningKey;
  /**
   * Called after each successful settlement; must not throw. `evmAddress` is the EVM address the
   * intent is bound to, when it names one (an EvmSigner intent's subject, lower-case hex).
   */
  onSettled?: (settlement: { receipt: Uint8Array; evmAddress?: string }) => void;
  /**
   * The merchant's credential: `POST /refund` needs `Authorization: Bearer <merchantToken>` (a refund is
   * the merchant's act, never the payer's, who holds the receipt). At least 32 characters; default a
   * fresh random 64-hex-character token each start, read from {@link RunningCborFacilitator.merchantToken}.
   */
  merchantToken?: string;
}

export interface RunningCborFacilitator {
  url: string;
  /** The Ed25519 key receipts are signed with: give it to `verifyReceipt`. */
  receiptKey: Uint8Array;
  /** Its X25519 HPKE public key: what masked intents seal to. */
  hpkeKey: Uint8Array;
  facilitator: LocalCborFacilitator;
  book: CborAccountBook;
  payerBalance(publicKey: Uint8Array, currency: Currency): bigint | undefined;
  merchantBalance(pseudonym: string, currency: Currency): bigint;
  /** The merchant's bearer token for `POST /refund` (give it to the merchant only: it moves money). */
  merchantToken: string;
  /** The DEMO humanity issuer's public key (it vouches for any subject): what a gated route trusts. */
  humanityIssuerKey: Uint8Array;
  calls: {
    verify: number;
    settle: number;
    supported: number;
    humanity: number;
    refund: number;
    revocations: number;
    /** `GET /settlements/<intent digest>` requests, malformed ones included. */
    settlements: number;
    /** Dev-only `POST /fund` requests. */
    fund: number;
  };
  stop(): Promise<void>;
}

/**
 * The local CBOR facilitator over HTTP on 127.0.0.1: `POST /verify`, `/settle` and `/refund` (the
 * merchant, with its bearer token, from loopback: a receipt → the payer credited back once, answered with
 * the signed revocation), `GET /revocations` and
 * `GET /settlements/<intent digest>` (whether that intent settled, with its receipt) in
 * `application/x402+cbor`, the dev-only `POST /fund` (test units for any payer, loopback callers only:
 * body `{ subject, currency, amount }`, answer `{ payer, balance }`), `GET /supported` in JSON (with the receipt key and a plain statement that
 * the proof is a stand-in), and `POST /humanity`: a DEMO humanity issuer that signs an `is_human`
 * claim for any subject (body `{ subject: bstr }`, answer the claim's bytes). Its receipt key is kept
 * in the books, so it survives a restart.
 */
export async function startCborFacilitator(
  options: StartCborFacilitatorOptions = {},
): Promise<RunningCborFacilitator> {
  const book = new CborAccountBook(options.file ?? ":memory:");
  const seed = Buffer.from(
    book.meta("receipt_key_seed", () => randomBytes(32).toString("hex")),
    "hex",
  );
  const receiptKey: SigningKey = createSigningKey("ed25519", seed);
  const maskKey = await deriveMaskHpkeKey(
    Buffer.from(
      book.meta("hpke_key_seed", () => randomBytes(32).toString("hex")),
      "hex",
    ),
  );
  for (const account of options.accounts ?? []) {
    for (const [currency, balance] of Object.entries(account.balances)) {
      book.openAccount(
        payerIdOfClaim({ subject: account.publicKey, signer: account.signer }),
        currency,
        balance,
      );
    }
  }
  const now = options.now ?? Date.now;
  const merchantToken = options.merchantToken ?? randomBytes(32).toString("hex");
  if (merchantToken.length < 32 || /\s/.test(merchantToken))
    throw new RangeError("merchantToken must be at least 32 characters, without white space");
  const isMerchant = bearerTokenCheck(merchantToken);
  const facilitator = new LocalCborFacilitator({
    book,
    receiptKey,
    maskKey,
    now,
    signers: SignerRegistry.standard(options.layerTwo, {
      chainId: options.evmChainId ?? 31337,
      rpcUrl: options.evmRpcUrl,
    }),
  });
  const humanityIssuer = options.humanityIssuer ?? demoHumanityIssuer();
  const calls = {
    verify: 0,
    settle: 0,
    supported: 0,
    humanity: 0,
    refund: 0,
    revocations: 0,
    settlements: 0,
    fund: 0,
  };
  const log = options.log;
  const supported = supportedDocument(options, receiptKey, maskKey, humanityIssuer);

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log?.(`cbor facilitator: ${(error as Error).message}`);
      // A signer backend that cannot tell (the layer-2 node is down): unavailable, never a verdict.
      if (!res.headersSent && error instanceof SignerUnavailableError) {
        return sendJson(res, 503, { error: "signer_unavailable", message: error.message });
      }
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/supported") {
      calls.supported++;
      return sendJson(res, 200, supported);
    }
    if (req.method === "GET" && path === "/revocations") {
      calls.revocations++;
      return sendCbor(res, encodeCborRevocationList(book.revocations()));
    }
    if (req.method === "GET" && path?.startsWith("/settlements/")) {
      calls.settlements++;
      const digest = parseIntentDigest(path.slice("/settlements/".length));
      if (digest === undefined) {
        return sendJson(res, 400, {
          error: "invalid_request",
          message: "expected GET /settlements/<64 lowercase hex digits: the SHA-256 of the payment_intent>",
        });
      }
      const status = await facilitator.cborSettlementOf(digest);
      log?.(`cbor settlement status: ${status.settled ? "settled, receipt answered" : "not settled"}`);
      return sendCbor(res, encodeCborSettlementStatus(status));
    }
    if (
      req.method !== "POST" ||
      (path !== "/verify" &&
        path !== "/settle" &&
        path !== "/humanity" &&
        path !== "/refund" &&
        path !== "/fund")
    )
      return sendJson(res, 404, { error: "not_found" });
    if (req.headers["content-type"]?.split(";")[0]?.trim().toLowerCase() !== CBOR_MEDIA_TYPE) {
      return sendJson(res, 415, { error: `expected Content-Type: ${CBOR_MEDIA_TYPE}` });
    }
    const body = await readBody(req);
    if (body === undefined)
      return sendJson(res, 413, { error: `body over ${MAX_FACILITATOR_REQUEST_BYTES} bytes` });
    if (path === "/humanity") {
      let subject: Uint8Array;
      try {
        subject = decodeHumanityRequest(body);
      } catch (error) {
        return sendJson(res, 400, { error: (error as Error).message });
      }
      calls.humanity++;
      try {
        log?.(`humanity: DEMO claim issued to ${payerIdOf(subject)} [demo issuer, proves nothing]`);
        return sendCbor(res, issueDemoHumanityClaim(humanityIssuer, subject, now()));
      } catch (error) {
        return sendJson(res, 400, { error: (error as Error).message });
      }
    }
    if (path === "/refund") return refund(req, res, body);
    if (path === "/fund") return fund(req, res, body);
    let request;
    try {
      request = decodeCborFacilitatorRequest(body);
    } catch (error) {
      return sendJson(res, 400, { error: (error as Error).message });
    }
    if (path === "/verify") {
      calls.verify++;
      const verdict = await facilitator.verifyCbor(request);
      log?.(
        `cbor verify: ${verdict.isValid ? `valid (${verdict.payer})` : `invalid: ${verdict.invalidReason}`} [stand-in proof]`,
      );
      return sendCbor(res, encodeCborVerifyResponse(verdict));
    }
    calls.settle++;
    const settlement = await facilitator.settleCbor(request);
    log?.(
      `cbor settle: ${settlement.success ? "settled, receipt signed" : `refused: ${settlement.errorReason}`} [stand-in proof]`,
    );
    if (settlement.success && settlement.receipt !== undefined)
      options.onSettled?.({ receipt: settlement.receipt, ...evmAddressOf(settlement.receipt) });
    return sendCbor(res, encodeCborSettleResponse(settlement));
  }

  /** Dev only: test units for any payer, so a fresh key of any signer backend can pay. Loopback callers only. */
  function fund(req: IncomingMessage, res: ServerResponse, body: Uint8Array): void {
    calls.fund++;
    if (!isLoopbackAddress(req.socket.remoteAddress)) {
      return sendJson(res, 403, { error: "forbidden", message: "POST /fund answers loopback callers only" });
    }
    let request;
    try {
      request = decodeCborFundRequest(body);
    } catch (error) {
      return sendJson(res, 400, { error: "invalid_request", message: (error as Error).message });
    }
    const limit = CBOR_DEV_BALANCES[request.currency] ?? 0n;
    if (request.amount > limit) {
      return sendJson(res, 400, {
        error: "invalid_request",
        message: `fund at most ${limit} ${request.currency} units a call (test units only)`,
      });
    }
    const payer = payerIdOfClaim(request.subject);
    const balance = book.credit(payer, request.currency, request.amount);
    log?.(`cbor fund: ${payer} +${request.amount} ${request.currency} (test units) → ${balance}`);
    return sendCbor(
      res,
      encodeCanonical(
        new Map<string, CborValue>([
          ["payer", payer],
          ["balance", balance],
        ]),
      ),
    );
  }

  /** The merchant's act: its token, from loopback; a payer holding a receipt moves nothing. */
  function refund(req: IncomingMessage, res: ServerResponse, body: Uint8Array): void {
    calls.refund++;
    if (!isLoopbackAddress(req.socket.remoteAddress)) {
      return sendJson(res, 403, {
        error: "forbidden",
        message: "POST /refund answers loopback callers only",
      });
    }
    if (!isMerchant(req.headers.authorization)) {
      log?.("cbor refund: refused, no merchant token");
      res.setHeader("www-authenticate", 'Bearer realm="merchant"');
      return sendJson(res, 401, {
        error: "merchant_unauthorized",
        message:
          "a refund is the merchant's act: send Authorization: Bearer <the merchant token> (npm start writes it to data/cbor-merchant.token)",
      });
    }
    let request;
    try {
      request = decodeCborRefundRequest(body);
    } catch (error) {
      return sendJson(res, 400, { error: "invalid_request", message: (error as Error).message });
    }
    const outcome = facilitator.refund(request.receipt, request.amount);
    log?.(`cbor refund: ${outcome.ok ? "refunded, revocation signed" : `refused: ${outcome.reason}`}`);
    if (outcome.ok) return sendCbor(res, outcome.revocation);
    const status = REFUND_REFUSAL_STATUS[outcome.reason];
    return sendJson(res, status, {
      error: outcome.reason,
      ...("detail" in outcome ? { message: outcome.detail } : {}),
    });
  }

  const { url } = await listenOnLoopback(server, options.port);
  log?.(`cbor facilitator listening on ${url}; ${STAND_IN_PROOF_NOTICE}`);
  return {
    url,
    receiptKey: receiptKey.publicKey,
    hpkeKey: maskKey.publicKey,
    humanityIssuerKey: humanityIssuer.publicKey,
    merchantToken,
    facilitator,
    book,
    payerBalance: (publicKey, currency) => book.payerBalance(payerIdOf(publicKey), currency),
    merchantBalance: (pseudonym, currency) => book.merchantBalance(pseudonym, currency),
    calls,
    async stop() {
      await closeServer(server);
      book.close();
    },
  };
}

const REFUND_REFUSAL_STATUS: Record<Exclude<LocalRefundOutcome, { ok: true }>["reason"], number> = {
  invalid_receipt: 400,
  invalid_refund: 400,
  refund_exceeds_payment: 400,
  unknown_receipt: 404,
  already_refunded: 409,
};

/** The EVM address a settled receipt's payer is, when its intent was an EvmSigner one. */
function evmAddressOf(receipt: Uint8Array): { evmAddress?: string } {
  const claim = decodeClaim(decodeSettlementReceipt(receipt).claim);
  return claim.signer === "evm" ? { evmAddress: `0x${Buffer.from(claim.subject).toString("hex")}` } : {};
}
