import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { CborFacilitator, CborSettlementStatus } from "../../facilitator/CborFacilitator.js";
import { DELEGATION_DEFAULTS, checkDelegationChain } from "../../protocol/cbor/checkDelegationChain.js";
import { checkPaymentIntent } from "../../protocol/cbor/checkPaymentIntent.js";
import { CLAIM_PARTS, type QuantifiedClaim } from "../../protocol/cbor/Claim.js";
import type {
  CborFacilitatorRequest,
  CborSettleResponse,
  CborVerifyResponse,
} from "../../protocol/cbor/facilitatorMessages.js";
import { intentDigestSegment } from "../../facilitator/intentDigestSegment.js";
import {
  decodePaymentRequest,
  paymentRequestDigest,
  type PaymentRequest,
} from "../../protocol/cbor/PaymentRequest.js";
import { decodePaymentSignature, type PaymentSignature } from "../../protocol/cbor/PaymentSignature.js";
import { PREDICATE_WAS_PAID } from "../../protocol/cbor/profile.js";
import { encodeSettlementReceipt, signReceipt } from "../../protocol/cbor/SettlementReceipt.js";
import { encodeRestrictedReceipt } from "../../protocol/cbor/RestrictedReceipt.js";
import { restrictReceipt } from "../../protocol/cbor/restrictReceipt.js";
import type { MaskHpkeKey } from "../../protocol/cbor/masks/maskHpke.js";
import { RECEIPT_SALT_BYTES } from "../../protocol/cbor/receiptCommitments.js";
import { readPaymentIntent, type ReadIntent } from "./readPaymentIntent.js";
import { payerIdOf, type SigningKey } from "../../protocol/cbor/signatures.js";
import { isStandInProof } from "../../protocol/cbor/standInProof.js";
import { revokeReceipt } from "../../protocol/cbor/revokeReceipt.js";
import { encodeSignedClaim } from "../../protocol/cbor/SignedClaim.js";
import { verifyReceipt } from "../../protocol/cbor/verifyReceipt.js";
import type { CborAccountBook, GrantSpend, RefundOutcome } from "./CborAccountBook.js";
import { payerIdOfClaim } from "../../protocol/cbor/payerIdOfClaim.js";
import { SIGNER_BACKEND_NAMES } from "../../signers/SignerBackend.js";
import { SignerRegistry } from "../../signers/SignerRegistry.js";
import { SIGNER_TABLE } from "../../signers/SIGNER_TABLE.js";

const BUILT_SIGNERS = SIGNER_BACKEND_NAMES.filter((name) => SIGNER_TABLE[name].built);

export interface LocalCborFacilitatorDeps {
  book: CborAccountBook;
  /** Ed25519 key the receipts are signed with (published at `/supported`). */
  receiptKey: SigningKey;
  now: () => number;
  /** Clock difference tolerated on a deadline, in seconds. */
  skewSeconds?: number;
  /** The signer backends it verifies intents with (every built one is accepted); default the standard two, offline. */
  signers?: SignerRegistry;
  /** Its HPKE key (published at `/supported`): opens the hidden parts of masked intents. */
  maskKey?: MaskHpkeKey;
}

export type LocalRefundOutcome =
  RefundOutcome | { ok: false; reason: "invalid_receipt" | "invalid_refund"; detail: string };

type Checked =
  | {
      ok: true;
      request: PaymentRequest;
      payment: PaymentSignature;
      claim: ReadIntent["claim"];
      intent: ReadIntent;
      payer: string;
      /** The delegation chain's grants, root first (none without a chain). */
      grants: GrantSpend[];
    }
  | { ok: false; reason: string };

/**
 * The local stack's facilitator for `application/x402+cbor` (the MVP's service-auth model): payer
 * accounts known by public key (through a delegation chain, the chain's root), a test balance per currency, settlement as a debit and a credit in
 * SQLite, receipts signed with its own Ed25519 key. A delegation grant's cap is held in its books
 * across payments, so it holds however many gateways settle under the grant. It cannot verify a STARK
 * proof: it accepts only the STAND-IN proof (a SHA-256 binding of the intent) and says so everywhere.
 * Never a verifier.
 */
export class LocalCborFacilitator implements CborFacilitator {
  private readonly signers: SignerRegistry;

  constructor(private readonly deps: LocalCborFacilitatorDeps) {
    this.signers = deps.signers ?? SignerRegistry.standard();
  }

  async verifyCbor(request: CborFacilitatorRequest): Promise<CborVerifyResponse> {
    const checked = await this.check(request);
    return checked.ok
      ? // A payer the mask hides is not named to the gateway.
        { isValid: true, ...(checked.intent.mask.intent.subject === "Open" ? { payer: checked.payer } : {}) }
      : { isValid: false, invalidReason: checked.reason };
  }

  async settleCbor(request: CborFacilitatorRequest): Promise<CborSettleResponse> {
    const checked = await this.check(request);
    if (!checked.ok) return { success: false, errorReason: checked.reason };
    const { claim, payment, payer, grants, intent } = checked;
    const settledAt = Math.floor(this.deps.now() / 1000);
    const intentDigest = createHash("sha256").update(payment.paymentIntent).digest();
    const outcome = this.deps.book.transfer(
      {
        intent: intentDigest.toString("hex"),
        payer,
        merchant: claim.object,
        currency: claim.quantity.currency,
        amount: claim.quantity.amount,
        settledAt,
        grants,
      },
      () => {
        // A part the receipt mask hides is committed with the salt the payer hid it with in the intent,
        // so the payer (who knows both) can open it; the gateway only sees the commitment.
        const salts = CLAIM_PARTS.map((part) =>
          intent.mask.receipt[part] === "Commit" && intent.salts[part] !== undefined
            ? intent.salts[part]
            : new Uint8Array(randomBytes(RECEIPT_SALT_BYTES)),
        );
        const receipt = signReceipt(
          this.deps.receiptKey,
          { ...claim, predicate: PREDICATE_WAS_PAID, time: settledAt, context: new Uint8Array(intentDigest) },
          { salts },
        );
        const open = CLAIM_PARTS.filter((part) => intent.mask.receipt[part] === "Open");
        return open.length === CLAIM_PARTS.length
          ? encodeSettlementReceipt(receipt)
          : encodeRestrictedReceipt(restrictReceipt(receipt, open).receipt);
      },
    );
    return outcome.ok
      ? { success: true, receipt: outcome.receipt }
      : { success: false, errorReason: outcome.reason };
  }

  /** The intent's settlement from the books: a read; `/settle` itself still refuses a second settle. */
  async cborSettlementOf(intentDigest: Uint8Array): Promise<CborSettlementStatus> {
    const receipt = this.deps.book.receiptOf(intentDigestSegment(intentDigest));
    return receipt === undefined ? { settled: false } : { settled: true, receipt };
  }

  /**
   * Refund a receipt this facilitator issued, once: credits the payer back (the whole amount, or
   * `amount` units) and answers the signed revocation (`revokes` claim, see revokeReceipt).
   */
  refund(receipt: Uint8Array, amount?: bigint): LocalRefundOutcome {
    const verdict = verifyReceipt(receipt, this.deps.receiptKey.publicKey);
    if (!verdict.valid) return { ok: false, reason: "invalid_receipt", detail: verdict.reason };
    const now = this.deps.now();
    const refunded = {
      currency: verdict.claim.quantity.currency,
      amount: amount ?? verdict.claim.quantity.amount,
    };
    let revocation: () => Uint8Array;
    try {
      const signed = encodeSignedClaim(
        revokeReceipt(receipt, this.deps.receiptKey, { now, refund: refunded }),
      );
      revocation = () => signed;
    } catch (error) {
      return { ok: false, reason: "invalid_refund", detail: (error as Error).message };
    }
    const outcome = this.deps.book.refund(
      {
        intent: Buffer.from(verdict.claim.context).toString("hex"),
        receipt,
        amount: refunded.amount,
        refundedAt: Math.floor(now / 1000),
      },
      revocation,
    );
    return outcome;
  }

  /** Throws SignerUnavailableError when a signer backend cannot tell (the HTTP face answers 503). */
  private async check(body: CborFacilitatorRequest): Promise<Checked> {
    let request: PaymentRequest;
    let payment: PaymentSignature;
    try {
      request = decodePaymentRequest(body.paymentRequest);
      payment = decodePaymentSignature(body.paymentSignature);
    } catch (error) {
      return { ok: false, reason: `invalid_payment: ${(error as Error).message}` };
    }
    const intent = await readPaymentIntent(request, payment, body.revelationMask, this.deps.maskKey);
    if (!intent.ok) return intent;
    const { claim } = intent;
    const skewMs = (this.deps.skewSeconds ?? 30) * 1000;
    if (request.deadline.getTime() + skewMs < this.deps.now())
      return { ok: false, reason: "request_expired" };
    const digest = paymentRequestDigest(body.paymentRequest);
    if (claim.context.length !== digest.length || !timingSafeEqual(claim.context, digest)) {
      return { ok: false, reason: "context_mismatch" };
    }
    const mismatch = checkPaymentIntent(request, claim);
    if (mismatch) return { ok: false, reason: `mismatch: ${mismatch.field}` };
    if (!intent.signatureChecked && payment.signature === undefined)
      return { ok: false, reason: "invalid_signature" };
    const refusal = intent.signatureChecked
      ? undefined
      : await this.signers.verifyIntent(
          {
            bytes: payment.paymentIntent,
            claim: claim as QuantifiedClaim,
            signature: payment.signature as Uint8Array,
          },
          BUILT_SIGNERS,
        );
    if (refusal !== undefined) {
      return {
        ok: false,
        reason: refusal.code === "verification_failed" ? "invalid_signature" : refusal.code,
      };
    }
    if (!isStandInProof(payment.starkProof, payment.paymentIntent))
      return { ok: false, reason: "stand_in_proof_mismatch" };
    let payer = payerIdOfClaim(claim);
    let grants: GrantSpend[] = [];
    if (payment.delegationChain !== undefined) {
      // The agent signs on the root's behalf: the root's account pays, under every grant's cap.
      const chain = checkDelegationChain(payment.delegationChain, request, claim as QuantifiedClaim, {
        ...DELEGATION_DEFAULTS,
        skewSeconds: this.deps.skewSeconds ?? 30,
        nowMs: this.deps.now(),
      });
      if (!chain.ok) {
        const { code, reason } = chain.refusal;
        return { ok: false, reason: `${code}: ${reason}` };
      }
      payer = payerIdOf(chain.root);
      grants = chain.grants.map((grant) => ({ id: grant.id, cap: grant.cap.amount }));
      // A cheap early refusal; the settlement's transaction holds the cap (concurrent payments race there).
      if (grants.some((grant) => this.deps.book.grantSpent(grant.id) + claim.quantity.amount > grant.cap)) {
        return { ok: false, reason: "delegation_cap_exceeded" };
      }
    }
    const balance = this.deps.book.payerBalance(payer, claim.quantity.currency);
    if (balance === undefined) return { ok: false, reason: "unknown_payer" };
    if (balance < claim.quantity.amount) return { ok: false, reason: "insufficient_funds" };
    return { ok: true, request, payment, claim, intent, payer, grants };
  }
}
