import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { hash, shortString } from "starknet";
import { minimalFelt } from "../starknet/StarknetRpc.js";
import { closeServer, listenOnLoopback } from "./loopbackServer.js";
import { answerStarknetRpc, type StandInChain } from "./starknetStandIn/answerStarknetRpc.js";
import { RecognitionRegistry, type RecordedPayer } from "./starknetStandIn/RecognitionRegistry.js";
import {
  STAND_IN_ACCOUNT_CLASS_HASH,
  STARKNET_DEV_ACCOUNT_COUNT,
  starknetAccountAddress,
  starknetDevAccount,
  type StarknetDevAccount,
} from "./starknetDevAccounts.js";

/** What the banner and the docs call it: a stand-in, never a Starknet implementation. */
export const STAND_IN_NOTICE = "local stand-in for a Starknet node";

/** The registry contract's fixed address: starknet_keccak of its name, so it looks like one. */
export const STAND_IN_REGISTRY_CONTRACT = minimalFelt(
  hash.getSelectorFromName("x402_gateway_local_registry"),
);

/** The address of the stand-in's registry contract for the resource `name` (starknet_keccak-derived). */
export function standInRegistryContract(name: string): string {
  return minimalFelt(hash.getSelectorFromName(`x402_gateway_local_registry:${name}`));
}

/** The stand-in's chain id: the short string `X402_LOCAL` (not a Starknet network). */
/** The stand-in chain's name: the short string a SNIP-12 domain's `chainId` names it by. */
export const STAND_IN_CHAIN_NAME = "X402_LOCAL";
export const STAND_IN_CHAIN_ID = shortString.encodeShortString(STAND_IN_CHAIN_NAME);

/** Where the JSON-RPC endpoint lives, as on a real node. */
export const STAND_IN_RPC_PATH = "/rpc/v0_10";

const MAX_BODY_BYTES = 1024 * 1024;

export interface StartStarknetStandInOptions {
  /** SQLite file of the recorded payers (default in memory: they last as long as the process). */
  file?: string;
  /** TCP port on 127.0.0.1; default a free one. */
  port?: number;
  log?: (line: string) => void;
}

export interface RunningStarknetStandIn {
  /** Base URL, `http://127.0.0.1:<port>`: what `recognition.rpcUrl` and `--rpc-url` take. */
  url: string;
  /** The JSON-RPC endpoint, `{url}/rpc/v0_10`. */
  rpcUrl: string;
  /** The default registry contract, whose `est_ouverte(payer)` answers `0x1` once the payer is recorded. */
  contract: string;
  chainId: string;
  /**
   * Deploys (in process) another registry contract for the resource `name`, at an address derived from
   * it (the same on every start), and answers the address: each recognized resource has its own.
   */
  deployRegistry(name: string): string;
  /**
   * Records `payer` (an EVM address or a layer-2 account, as a felt) as having paid for the resource of
   * registry `contract` (default {@link RunningStarknetStandIn.contract}), in a new block; resolves that
   * block's number.
   */
  record(payer: string, contract?: string): number;
  recorded(): RecordedPayer[];
  /** Every `record_payer` call its invoke transactions executed, in order: a payer written twice shows twice. */
  recordCalls(): Array<{ hash: string; contract: string; payer: string }>;
  /** The dev accounts deployed at start (`starknetDevAccount(0…)`): SNIP-6 accounts of public test keys. */
  devAccounts: StarknetDevAccount[];
  /**
   * Deploys an account for a Stark public key (felt hex), in process (the stand-in deploys nothing by transaction),
   * and answers its address; it answers `is_valid_signature` from then on (until the process stops).
   */
  deployAccount(publicKey: string): string;
  /** JSON-RPC requests served, by method (`(invalid)` for malformed ones). */
  calls: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * A local stand-in for a Starknet node, for the dev stack (no Starknet node can be installed here):
 * serves at `/rpc/v0_10` the read methods the project and starknet.js need (`starknet_call`,
 * `starknet_chainId`, `starknet_blockNumber`, `starknet_blockHashAndNumber`, `starknet_specVersion`,
 * `starknet_syncing`, `starknet_getClassHashAt`) in the spec's envelopes, with the recognition
 * registry, whose `est_ouverte(payer)` answers `0x1` once the payer is recorded, and dev accounts
 * whose SNIP-6 `is_valid_signature(hash, signature)` answers `VALID` for their Stark key's signature. It
 * executes no Cairo. It takes one kind of transaction, the payer recorder's (`starknet_addInvokeTransaction`:
 * a dev account's v3 invoke of `record_payer(payer)` on registry contracts, checked for its nonce and
 * signature, with `starknet_getNonce`, `starknet_getTransactionStatus` and `starknet_getTransactionReceipt`);
 * `record` is the same write in process. Its state lives in `file`, so a recorded payer, nonces and
 * receipts stay across restarts.
 */
export async function startStarknetStandIn(
  options: StartStarknetStandInOptions = {},
): Promise<RunningStarknetStandIn> {
  const registry = new RecognitionRegistry(options.file ?? ":memory:", STAND_IN_REGISTRY_CONTRACT);
  const chain: StandInChain = {
    chainId: STAND_IN_CHAIN_ID,
    contract: STAND_IN_REGISTRY_CONTRACT,
    registries: new Set([STAND_IN_REGISTRY_CONTRACT]),
    classHash: minimalFelt(hash.getSelectorFromName("x402_gateway_local_registry_class")),
    registry,
    accounts: new Map(),
    accountClassHash: STAND_IN_ACCOUNT_CLASS_HASH,
  };
  const devAccounts = Array.from({ length: STARKNET_DEV_ACCOUNT_COUNT }, (_, index) =>
    starknetDevAccount(index),
  );
  for (const account of devAccounts) chain.accounts.set(account.address, account.publicKey);
  const calls = new Map<string, number>();
  const log = options.log;
  const count = (body: unknown) => {
    for (const item of Array.isArray(body) ? body : [body]) {
      const method = (item as { method?: unknown } | null)?.method;
      const name = typeof method === "string" && method.length <= 64 ? method : "(invalid)";
      calls.set(name, (calls.get(name) ?? 0) + 1);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log?.(`layer-2 stand-in: ${(error as Error).message}`);
      if (!res.headersSent) sendJson(res, 500, internalError((error as Error).message));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== STAND_IN_RPC_PATH) {
      return sendJson(res, 404, {
        error: "not_found",
        message: `JSON-RPC is served at ${STAND_IN_RPC_PATH}`,
      });
    }
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return sendJson(res, 405, { error: "method_not_allowed", message: "POST a JSON-RPC 2.0 request" });
    }
    const text = await readBody(req);
    if (text === undefined) return sendJson(res, 413, { error: `body over ${MAX_BODY_BYTES} bytes` });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      calls.set("(invalid)", (calls.get("(invalid)") ?? 0) + 1);
      return sendJson(res, 200, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" },
      });
    }
    count(body);
    const answer = answerStarknetRpc(body, chain);
    if (answer === undefined) return void res.writeHead(204).end();
    sendJson(res, 200, answer);
  }

  const { url } = await listenOnLoopback(server, options.port);
  log?.(
    `layer-2 node listening on ${url}${STAND_IN_RPC_PATH} (${STAND_IN_NOTICE}; registry ${chain.contract}, block ${registry.blockNumber()})`,
  );
  return {
    url,
    rpcUrl: `${url}${STAND_IN_RPC_PATH}`,
    contract: chain.contract,
    chainId: chain.chainId,
    deployRegistry(name) {
      const address = standInRegistryContract(name);
      chain.registries.add(address);
      log?.(`layer-2 stand-in: registry ${address} deployed for ${name}`);
      return address;
    },
    record(payer, contract = chain.contract) {
      const at = minimalFelt(contract);
      if (!chain.registries.has(at)) throw new RangeError(`no registry contract at ${at} on the stand-in`);
      const block = registry.record(at, payer);
      log?.(`layer-2 stand-in: ${payer} recorded in ${at}, block ${block}: est_ouverte now answers 0x1`);
      return block;
    },
    recorded: () => registry.recorded(),
    recordCalls: () => registry.recordCalls(),
    devAccounts,
    deployAccount(publicKey) {
      const key = minimalFelt(publicKey);
      const address = starknetAccountAddress(key);
      chain.accounts.set(address, key);
      log?.(`layer-2 stand-in: dev account ${address} deployed (Stark key ${key})`);
      return address;
    },
    calls,
    async stop() {
      await closeServer(server);
      registry.close();
    },
  };
}

function internalError(data: string) {
  return { jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error", data } };
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
