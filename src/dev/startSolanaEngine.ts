import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { lamports, type Address } from "@solana/kit";
import { closeServer, listenOnLoopback } from "./loopbackServer.js";
import { answerSolanaRpc } from "./solanaEngine/answerSolanaRpc.js";
import { LocalSolanaChain } from "./solanaEngine/LocalSolanaChain.js";
import {
  associatedTokenAddress,
  decodeTokenAccount,
  encodeMint,
  encodeTokenAccount,
  MINT_SIZE,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM,
} from "./solanaEngine/splAccounts.js";
import { solanaDevAccount, type SolanaDevAccount } from "./solanaDevAccounts.js";

/** What the banner and the docs call it: a local engine, never a Solana cluster. */
export const SOLANA_ENGINE_NOTICE = "LOCAL Solana engine (LiteSVM in process; not a Solana cluster)";

/** The network id it answers as: devnet's CAIP-2 id, the one the official `@x402/svm` accepts for a test network. */
export const LOCAL_SOLANA_NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

/** Devnet USDC's mint address: the engine creates a test mint there (6 decimals; the mint authority a dev key). */
export const LOCAL_USDC_MINT = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address;

/** 1 000 USDC at 6 decimals. */
export const DEFAULT_SOLANA_PAYER_FUNDS = 1_000_000_000n;

const MAX_BODY_BYTES = 1024 * 1024;
const SOL = 1_000_000_000n;

export interface StartSolanaEngineOptions {
  /** TCP port on 127.0.0.1; default a free one. */
  port?: number;
  /** Test USDC given to the payer, in the smallest unit (6 decimals); default 1 000 USDC. */
  fundPayer?: bigint;
  log?: (line: string) => void;
}

export interface RunningSolanaEngine {
  /** The JSON-RPC endpoint, `http://127.0.0.1:<port>`: the `rpcUrl` the official client and facilitator take. */
  rpcUrl: string;
  port: number;
  /** {@link LOCAL_SOLANA_NETWORK}. */
  network: string;
  /** The test USDC mint ({@link LOCAL_USDC_MINT}). */
  mint: Address;
  accounts: {
    /** Pays the transactions' fees and signs them last: the facilitator's key (10 SOL). */
    feePayer: SolanaDevAccount;
    /** Holds `fundPayer` test USDC (and no SOL: the fee payer pays the fees). */
    payer: SolanaDevAccount;
    /** Where the paywall's `payTo` should point; its USDC account exists, empty. */
    payee: SolanaDevAccount;
  };
  chain: LocalSolanaChain;
  /** Counts of the JSON-RPC requests served, by method; and the methods asked for that are not served. */
  calls: Map<string, number>;
  unknownMethods: Set<string>;
  /** The token balance of `owner`'s associated account for `mint` (default USDC), 0 when it has none. */
  tokenBalance(owner: Address, mint?: Address): Promise<bigint>;
  /** Creates (or overwrites) `owner`'s associated account for `mint` (default USDC) holding `amount`. */
  fundTokenAccount(owner: Address, amount: bigint, mint?: Address): Promise<Address>;
  /** Creates another SPL mint (classic token program) at `mint` with `decimals`. */
  createMint(mint: Address, decimals: number): void;
  stop(): Promise<void>;
}

/**
 * Starts the LOCAL Solana engine: LiteSVM behind a JSON-RPC server on loopback, answering as devnet, with a
 * test USDC mint at devnet USDC's address, a funded payer, an empty payee account and a fee payer with SOL.
 */
export async function startSolanaEngine(
  options: StartSolanaEngineOptions = {},
): Promise<RunningSolanaEngine> {
  const log = options.log;
  const chain = new LocalSolanaChain();
  const [feePayer, payer, payee, mintAuthority] = await Promise.all([
    solanaDevAccount("feePayer"),
    solanaDevAccount("payer"),
    solanaDevAccount("payee"),
    solanaDevAccount("mintAuthority"),
  ]);
  const svm = chain.svm;
  const rentFor = (size: number) => svm.minimumBalanceForRentExemption(BigInt(size));
  const createMint = (mint: Address, decimals: number) =>
    svm.setAccount({
      address: mint,
      data: encodeMint({ mintAuthority: mintAuthority.address, supply: 0n, decimals }),
      executable: false,
      lamports: lamports(rentFor(MINT_SIZE)),
      programAddress: TOKEN_PROGRAM,
      space: BigInt(MINT_SIZE),
    } as never);
  const fundTokenAccount = async (owner: Address, amount: bigint, mint: Address = LOCAL_USDC_MINT) => {
    const account = await associatedTokenAddress(owner, mint);
    svm.setAccount({
      address: account,
      data: encodeTokenAccount({ mint, owner, amount }),
      executable: false,
      lamports: lamports(rentFor(TOKEN_ACCOUNT_SIZE)),
      programAddress: TOKEN_PROGRAM,
      space: BigInt(TOKEN_ACCOUNT_SIZE),
    } as never);
    return account;
  };
  createMint(LOCAL_USDC_MINT, 6);
  svm.airdrop(feePayer.address as never, lamports(10n * SOL) as never);
  await fundTokenAccount(payer.address, options.fundPayer ?? DEFAULT_SOLANA_PAYER_FUNDS);
  await fundTokenAccount(payee.address, 0n);

  const tokenBalance = async (owner: Address, mint: Address = LOCAL_USDC_MINT): Promise<bigint> => {
    const state = svm.getAccount(await associatedTokenAddress(owner, mint));
    return state.exists ? (decodeTokenAccount(state.data as Uint8Array)?.amount ?? 0n) : 0n;
  };

  const calls = new Map<string, number>();
  const unknownMethods = new Set<string>();
  const onUnknown = (method: string) => {
    if (!unknownMethods.has(method)) log?.(`solana engine: method not served: ${method}`);
    unknownMethods.add(method);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 500, { jsonrpc: "2.0", id: null, error: { code: -32603, message: String(error) } });
      else res.destroy();
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Browsers (the paywall page) call it from another origin, as they call a public Solana RPC endpoint.
    res.setHeader("Access-Control-Allow-Origin", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": "content-type",
        "Access-Control-Max-Age": "600",
      });
      res.end();
      return;
    }
    if (req.method !== "POST") return send(res, 405, { error: "POST JSON-RPC requests here" });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return send(res, 413, { error: "body too large" });
      chunks.push(chunk);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    const one = (request: unknown) => {
      const method = String((request as { method?: unknown } | null)?.method);
      calls.set(method, (calls.get(method) ?? 0) + 1);
      return answerSolanaRpc(chain, request, onUnknown);
    };
    send(res, 200, Array.isArray(body) ? body.map(one) : one(body));
  }

  const { url, port } = await listenOnLoopback(server, options.port);
  log?.(`${SOLANA_ENGINE_NOTICE} on ${url} as ${LOCAL_SOLANA_NETWORK}, test USDC mint ${LOCAL_USDC_MINT}`);
  let stopped: Promise<void> | undefined;
  return {
    rpcUrl: url,
    port,
    network: LOCAL_SOLANA_NETWORK,
    mint: LOCAL_USDC_MINT,
    accounts: { feePayer, payer, payee },
    chain,
    calls,
    unknownMethods,
    tokenBalance,
    fundTokenAccount,
    createMint,
    stop: () => (stopped ??= closeServer(server)),
  };
}

/** JSON with bigints written as plain numbers, as a Solana node writes u64 values. */
function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_key, value: unknown) =>
    typeof value === "bigint" ? `\u0000big:${value}` : value,
  ).replace(/"\\u0000big:(-?\d+)"/g, "$1");
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
