import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { x402Facilitator } from "@x402/core/facilitator";
import { PaymentPayloadV2Schema, PaymentRequirementsV2Schema } from "@x402/core/schemas";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import type { KeyPairSigner } from "@solana/kit";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";
import { createPublicClient, createWalletClient, http, type Chain, type Hex } from "viem";
import { nonceManager, privateKeyToAccount } from "viem/accounts";
import { aliasFacilitatorScheme } from "./aliasFacilitatorScheme.js";
import { LOCAL_POLLING_INTERVAL_MS } from "./startAnvil.js";
import { closeServer, listenOnLoopback } from "./loopbackServer.js";

export type LocalScheme = "exact" | "exact-pq" | "upto";

export interface StartFacilitatorOptions {
  rpcUrl: string;
  chain: Chain;
  /** Key of the account that sends settlement transactions (and pays their gas). */
  privateKey: Hex;
  /** Schemes to serve; `exact-pq` settles like `exact` (an EIP-3009 authorization). Default `["exact", "exact-pq"]`. */
  schemes?: LocalScheme[];
  /** TCP port on 127.0.0.1; default a free one. */
  port?: number;
  /** How long settlement waits for the transaction receipt, in ms (default 30 000). */
  confirmationTimeoutMs?: number;
  log?: (line: string) => void;
  /**
   * Also settle `exact` on a Solana network with the official `@x402/svm` facilitator scheme: its JSON-RPC
   * endpoint (the LOCAL engine's) and the fee payer's key, which `/supported` names as `extra.feePayer`.
   */
  solana?: { network: string; rpcUrl: string; feePayer: KeyPairSigner };
  /** Called after each successful settlement (the local stack records the payer on layer 2); must not throw. */
  onSettled?: (settlement: LocalSettlement) => void;
}

/** A settlement the local facilitator made: who paid, in which transaction, on which network. */
export interface LocalSettlement {
  /** The payer's EVM address, as the scheme reports it. */
  payer: string;
  transaction: string;
  network: Network;
}

/** A facilitator served over HTTP on loopback. */
export interface RunningFacilitator {
  /** Base URL: `POST {url}/verify`, `POST {url}/settle`, `GET {url}/supported`. */
  url: string;
  port: number;
  /** CAIP-2 network it serves, `eip155:<chainId>`. */
  network: Network;
  /** The Solana network it also serves (`exact` only), when started with `solana`. */
  solanaNetwork?: Network;
  /** Address that sends the settlement transactions. */
  signerAddress: Hex;
  /** The official x402 facilitator behind the HTTP server. */
  facilitator: x402Facilitator;
  /** Counts of the requests served, by endpoint. */
  calls: { verify: number; settle: number; supported: number };
  /** Closes the server and drops open connections: afterwards connections are refused. */
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Serves the official `@x402/core` facilitator with the `@x402/evm` exact scheme (and an `exact-pq`
 * alias of it) over HTTP on 127.0.0.1, settling on the given chain with a viem signer.
 */
export async function startFacilitator(options: StartFacilitatorOptions): Promise<RunningFacilitator> {
  const network = `eip155:${options.chain.id}` as Network;
  const account = privateKeyToAccount(options.privateKey, { nonceManager });
  const transport = http(options.rpcUrl);
  const publicClient = createPublicClient({
    chain: options.chain,
    transport,
    pollingInterval: LOCAL_POLLING_INTERVAL_MS,
  });
  const walletClient = createWalletClient({ account, chain: options.chain, transport });
  const signer = toFacilitatorEvmSigner(
    {
      address: account.address,
      readContract: (args) =>
        publicClient.readContract(args as Parameters<typeof publicClient.readContract>[0]),
      verifyTypedData: (args) =>
        publicClient.verifyTypedData(args as Parameters<typeof publicClient.verifyTypedData>[0]),
      writeContract: (args) =>
        walletClient.writeContract(args as Parameters<typeof walletClient.writeContract>[0]),
      sendTransaction: (args) => walletClient.sendTransaction(args),
      waitForTransactionReceipt: (args) => publicClient.waitForTransactionReceipt(args),
      getCode: (args) => publicClient.getCode(args),
    },
    { confirmationTimeoutMs: options.confirmationTimeoutMs ?? 30_000 },
  );

  const exact = new ExactEvmScheme(signer);
  const facilitator = new x402Facilitator();
  const schemes = options.schemes ?? ["exact", "exact-pq"];
  for (const scheme of schemes) {
    if (scheme === "upto") facilitator.register(network, new UptoEvmScheme(signer));
    else facilitator.register(network, scheme === "exact" ? exact : aliasFacilitatorScheme(exact, scheme));
  }
  const solanaNetwork = options.solana?.network as Network | undefined;
  if (options.solana && solanaNetwork) {
    const svmSigner = toFacilitatorSvmSigner(options.solana.feePayer, {
      defaultRpcUrl: options.solana.rpcUrl,
    });
    facilitator.register(solanaNetwork, new ExactSvmScheme(svmSigner));
  }
  const serves = (requirements: PaymentRequirements): boolean =>
    requirements.network === solanaNetwork
      ? requirements.scheme === "exact"
      : requirements.network === network && schemes.includes(requirements.scheme as LocalScheme);

  const calls = { verify: 0, settle: 0, supported: 0 };
  const log = options.log;
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log?.(`facilitator: ${req.method} ${req.url} failed: ${describe(error)}`);
      if (!res.headersSent) send(res, 500, { error: "internal_error", message: describe(error) });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/supported") {
      calls.supported++;
      return send(res, 200, facilitator.getSupported());
    }
    if (req.method === "POST" && (path === "/verify" || path === "/settle")) {
      const endpoint = path === "/verify" ? "verify" : "settle";
      calls[endpoint]++;
      const body = await readRequest(req);
      if ("error" in body) return send(res, 400, { error: "invalid_request", message: body.error });
      const { paymentPayload, paymentRequirements } = body;
      const kind = `${paymentRequirements.scheme} ${paymentRequirements.network}`;
      if (!serves(paymentRequirements)) {
        const reason = "unsupported_scheme";
        log?.(`facilitator: ${endpoint} ${kind}: ${reason}`);
        return send(
          res,
          200,
          endpoint === "verify"
            ? {
                isValid: false,
                invalidReason: reason,
                invalidMessage: `this facilitator serves ${network} only`,
              }
            : { success: false, errorReason: reason, transaction: "", network: paymentRequirements.network },
        );
      }
      if (endpoint === "verify") {
        const result = await facilitator.verify(paymentPayload, paymentRequirements);
        log?.(`facilitator: verify ${kind} ${paymentRequirements.amount} → ${outcome(result)}`);
        return send(res, 200, result);
      }
      const result = await facilitator.settle(paymentPayload, paymentRequirements);
      log?.(`facilitator: settle ${kind} ${paymentRequirements.amount} → ${outcome(result)}`);
      if (result.success && result.payer !== undefined) {
        options.onSettled?.({
          payer: result.payer,
          transaction: result.transaction,
          network: result.network,
        });
      }
      return send(res, 200, result);
    }
    send(res, 404, { error: "not_found", message: `${req.method} ${path} is not served here` });
  }

  const { url, port } = await listenOnLoopback(server, options.port);
  log?.(
    `facilitator listening on ${url} (${schemes.join(", ")} on ${network}, signer ${account.address}` +
      (solanaNetwork ? `; exact on ${solanaNetwork}, fee payer ${options.solana?.feePayer.address})` : ")"),
  );
  return {
    url,
    port,
    network,
    solanaNetwork,
    signerAddress: account.address,
    facilitator,
    calls,
    stop: () => closeServer(server),
  };
}

type FacilitatorRequest =
  { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements } | { error: string };

async function readRequest(req: IncomingMessage): Promise<FacilitatorRequest> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { error: `body larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return { error: "body is not JSON" };
  }
  const { paymentPayload, paymentRequirements } = (body ?? {}) as Record<string, unknown>;
  const payload = PaymentPayloadV2Schema.safeParse(paymentPayload);
  if (!payload.success) return { error: `paymentPayload: ${payload.error.issues[0]?.message ?? "invalid"}` };
  const requirements = PaymentRequirementsV2Schema.safeParse(paymentRequirements);
  if (!requirements.success) {
    return { error: `paymentRequirements: ${requirements.error.issues[0]?.message ?? "invalid"}` };
  }
  return {
    paymentPayload: paymentPayload as PaymentPayload,
    paymentRequirements: paymentRequirements as PaymentRequirements,
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_key, value: unknown) =>
    typeof value === "bigint" ? value.toString() : value,
  );
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function outcome(result: {
  isValid?: boolean;
  success?: boolean;
  invalidReason?: string;
  errorReason?: string;
  transaction?: string;
}): string {
  if (result.isValid === true) return "valid";
  if (result.success === true) return `settled in ${result.transaction}`;
  return `rejected: ${result.invalidReason ?? result.errorReason ?? "no reason"}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
