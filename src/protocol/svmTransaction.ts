import { encodeBase58 } from "./base58.js";
import { decodeBase64 } from "./decodeBase64.js";

/** One compiled instruction: its program and accounts as indexes into the message's static keys. */
export interface SvmInstruction {
  programIndex: number;
  accounts: number[];
  data: Uint8Array;
}

/** What the paywall reads of a Solana transaction (legacy or v0): its signatures, message and transfer. */
export interface SvmTransaction {
  signatures: Uint8Array[];
  /** The signed message: what every signature covers, the same however the transaction is encoded. */
  message: Uint8Array;
  /** The static account keys, base58. */
  accountKeys: string[];
  recentBlockhash: string;
  instructions: SvmInstruction[];
}

/** A Solana "compact-u16" length: 1–3 bytes, 7 bits each. */
function readShortVec(bytes: Uint8Array, at: { offset: number }): number {
  let value = 0;
  for (let shift = 0; shift < 21; shift += 7) {
    const byte = bytes[at.offset++];
    if (byte === undefined) throw new Error("truncated length");
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return value;
  }
  throw new Error("length longer than 3 bytes");
}

function take(bytes: Uint8Array, at: { offset: number }, length: number): Uint8Array {
  if (at.offset + length > bytes.length) throw new Error("truncated transaction");
  const slice = bytes.subarray(at.offset, at.offset + length);
  at.offset += length;
  return slice;
}

/** A wire transaction's parts, with its keys as bytes: base58 is written only for what is read. */
interface WireTransaction {
  signatures: Uint8Array[];
  message: Uint8Array;
  keys: Uint8Array[];
  blockhash: Uint8Array;
  instructions: SvmInstruction[];
}

/** Walks a wire transaction (base64): every length and index checked; undefined when it is not one. */
function readWireTransaction(base64: string): WireTransaction | undefined {
  try {
    const wire = decodeBase64(base64);
    const at = { offset: 0 };
    const signatureCount = readShortVec(wire, at);
    if (signatureCount === 0 || signatureCount > 64) return undefined;
    const signatures = Array.from({ length: signatureCount }, () => take(wire, at, 64));
    const message = wire.subarray(at.offset);
    const cursor = { offset: 0 };
    if (((message[0] ?? 0) & 0x80) !== 0) {
      // A versioned message: only v0 exists.
      if ((message[0] ?? 0) !== 0x80) return undefined;
      cursor.offset = 1;
    }
    const header = take(message, cursor, 3);
    if (header[0] !== signatureCount) return undefined;
    const keyCount = readShortVec(message, cursor);
    const keys = Array.from({ length: keyCount }, () => take(message, cursor, 32));
    const blockhash = take(message, cursor, 32);
    const instructionCount = readShortVec(message, cursor);
    const instructions: SvmInstruction[] = [];
    for (let index = 0; index < instructionCount; index++) {
      const programIndex = take(message, cursor, 1)[0] ?? 0;
      const accounts = [...take(message, cursor, readShortVec(message, cursor))];
      const data = take(message, cursor, readShortVec(message, cursor));
      if (programIndex >= keyCount || accounts.some((account) => account >= keyCount)) return undefined;
      instructions.push({ programIndex, accounts, data });
    }
    return { signatures, message, keys, blockhash, instructions };
  } catch {
    return undefined;
  }
}

/** Reads a wire transaction (base64, as the `exact` SVM payload's `transaction`); undefined when it is not one. */
export function parseSvmTransaction(base64: string): SvmTransaction | undefined {
  const read = readWireTransaction(base64);
  if (read === undefined) return undefined;
  const { signatures, message, keys, blockhash, instructions } = read;
  return {
    signatures,
    message: new Uint8Array(message),
    accountKeys: keys.map((key) => encodeBase58(key)),
    recentBlockhash: encodeBase58(blockhash),
    instructions,
  };
}

/**
 * The signed message of a wire transaction that {@link parseSvmTransaction} reads (the same checks), without
 * writing its keys in base58: what a payment's ledger identity hashes.
 */
export function svmMessageOf(base64: string): Uint8Array | undefined {
  return readWireTransaction(base64)?.message;
}

const TOKEN_PROGRAMS = new Set([
  "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb",
]);
/** SPL Token's TransferChecked instruction tag. */
const TRANSFER_CHECKED = 12;

/** The SPL TransferChecked the transaction makes: its source token account and authority (the payer). */
export function svmTransferOf(
  transaction: SvmTransaction,
): { source: string; authority: string } | undefined {
  for (const instruction of transaction.instructions) {
    const program = transaction.accountKeys[instruction.programIndex];
    if (program === undefined || !TOKEN_PROGRAMS.has(program)) continue;
    if (instruction.data[0] !== TRANSFER_CHECKED || instruction.accounts.length < 4) continue;
    const [source, , , authority] = instruction.accounts.map((index) => transaction.accountKeys[index]);
    if (source !== undefined && authority !== undefined) return { source, authority };
  }
  return undefined;
}
