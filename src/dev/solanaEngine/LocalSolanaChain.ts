import {
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type Transaction,
} from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";

/** A transaction the local chain executed (landed), successful or failed in execution. */
export interface LandedTransaction {
  signature: string;
  /** The transaction as it was sent, in the wire format. */
  wire: Uint8Array;
  slot: bigint;
  /** The execution error, as the RPC's `err` (a string naming it), or null when it succeeded. */
  err: string | null;
  logs: string[];
  unitsConsumed: bigint;
  /** Every account the message names (static keys), for `getSignaturesForAddress`. */
  accounts: string[];
}

/** What simulating a transaction gave: its error (null: it would succeed), logs and compute used. */
export interface SimulationOutcome {
  err: string | null;
  logs: string[];
  unitsConsumed: bigint;
}

/** Why a transaction was refused before execution: it never lands (bad signature, unknown blockhash, a replay). */
export class TransactionRefused extends Error {}

/** How many blocks a blockhash stays valid for, as on Solana. */
export const BLOCKHASH_VALIDITY_BLOCKS = 150n;

const base58 = getBase58Decoder();
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

/**
 * LiteSVM (the real Solana runtime, in process) with what an RPC node adds on top: a slot that advances
 * with each landed transaction, the history of landed transactions by signature and by account, and
 * blockhash validity. Not a Solana cluster: one process, no consensus, instantly final.
 */
export class LocalSolanaChain {
  readonly svm = new LiteSVM();
  private readonly landed = new Map<string, LandedTransaction>();
  private readonly byAccount = new Map<string, string[]>();
  private readonly blockhashSlots = new Map<string, bigint>();

  constructor() {
    this.blockhashSlots.set(this.svm.latestBlockhash(), this.slot());
  }

  slot(): bigint {
    return this.svm.getClock().slot;
  }

  /** The current blockhash and the last block height it is valid at. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    const blockhash = this.svm.latestBlockhash();
    const issued = this.blockhashSlots.get(blockhash) ?? this.slot();
    return { blockhash, lastValidBlockHeight: issued + BLOCKHASH_VALIDITY_BLOCKS };
  }

  isBlockhashValid(blockhash: string): boolean {
    const issued = this.blockhashSlots.get(blockhash);
    return issued !== undefined && this.slot() <= issued + BLOCKHASH_VALIDITY_BLOCKS;
  }

  /** Moves to a new blockhash (the old one stays valid for its 150 blocks), as a cluster does every slot. */
  advanceBlockhash(): void {
    this.svm.expireBlockhash();
    this.blockhashSlots.set(this.svm.latestBlockhash(), this.slot());
  }

  /** Jumps `blocks` ahead: blockhashes older than 150 blocks expire (tests of an expired payment). */
  advanceSlots(blocks: bigint): void {
    this.svm.warpToSlot(this.slot() + blocks);
  }

  /** Executes a wire transaction; answers its signature. Throws {@link TransactionRefused} when it cannot land. */
  send(wire: Uint8Array): LandedTransaction {
    const transaction = this.decode(wire);
    const signature = firstSignature(transaction);
    if (this.landed.has(signature)) throw new TransactionRefused("AlreadyProcessed");
    const blockhash = blockhashOf(transaction);
    if (!this.isBlockhashValid(blockhash)) throw new TransactionRefused("BlockhashNotFound");
    this.svm.withSigverify(true);
    let outcome: TransactionMetadata | FailedTransactionMetadata;
    try {
      outcome = this.svm.sendTransaction(transaction as never);
    } catch (error) {
      throw new TransactionRefused((error as Error).message);
    }
    const err = outcome instanceof FailedTransactionMetadata ? String(outcome.err()) : null;
    // Errors before execution (signatures, fees, a replay) leave no trace on a real chain either.
    if (err !== null && !/InstructionError|InsufficientFundsForRent|DuplicateInstruction/.test(err)) {
      throw new TransactionRefused(err);
    }
    const meta = outcome instanceof FailedTransactionMetadata ? outcome.meta() : outcome;
    const accounts = messageDecoder.decode(transaction.messageBytes).staticAccounts.map(String);
    const slot = this.slot();
    const record: LandedTransaction = {
      signature,
      wire,
      slot,
      err,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      accounts,
    };
    this.landed.set(signature, record);
    for (const account of accounts) {
      const list = this.byAccount.get(account) ?? [];
      list.unshift(signature);
      this.byAccount.set(account, list);
    }
    this.svm.warpToSlot(slot + 1n);
    return record;
  }

  /** Runs a wire transaction without landing it; `sigVerify` false accepts missing signatures (the fee payer's). */
  simulate(wire: Uint8Array, sigVerify: boolean): SimulationOutcome {
    const transaction = this.decode(wire);
    this.svm.withSigverify(sigVerify);
    try {
      const outcome = this.svm.simulateTransaction(transaction as never);
      if (outcome instanceof FailedTransactionMetadata) {
        const meta = outcome.meta();
        return { err: String(outcome.err()), logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed() };
      }
      const meta = outcome.meta();
      return { err: null, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed() };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  transaction(signature: string): LandedTransaction | undefined {
    return this.landed.get(signature);
  }

  /** Signatures of the landed transactions naming `address`, newest first. */
  signaturesFor(address: Address | string): LandedTransaction[] {
    return (this.byAccount.get(address) ?? []).flatMap((signature) => this.landed.get(signature) ?? []);
  }

  private decode(wire: Uint8Array): Transaction {
    try {
      return transactionDecoder.decode(wire);
    } catch (error) {
      throw new TransactionRefused(`transaction could not be decoded: ${(error as Error).message}`);
    }
  }
}

/** The transaction's id: its first signature (the fee payer's), base58; all zeros when unsigned. */
function firstSignature(transaction: Transaction): string {
  const first = Object.values(transaction.signatures)[0];
  return base58.decode(first ?? new Uint8Array(64));
}

function blockhashOf(transaction: Transaction): string {
  return messageDecoder.decode(transaction.messageBytes).lifetimeToken;
}

/** A base64 string's bytes. */
export function fromBase64(text: string): Uint8Array {
  return new Uint8Array(getBase64Encoder().encode(text));
}
