import type { Network } from "@x402/core/types";
import type { Chain, Hex, PublicClient } from "viem";
import { deployTestToken, type TestToken } from "./deployTestToken.js";
import { devAccount, DEV_ACCOUNT_INDEX, type DevAccount } from "./devAccounts.js";
import { installMulticall3 } from "./installMulticall3.js";
import { installUptoContracts } from "./installContractAt.js";
import { PayerRecorder } from "./PayerRecorder.js";
import { startStarknetStandIn, type RunningStarknetStandIn } from "./startStarknetStandIn.js";
import { startAnvil } from "./startAnvil.js";
import { startSolanaEngine, type RunningSolanaEngine } from "./startSolanaEngine.js";
import { startFacilitator, type LocalScheme, type RunningFacilitator } from "./startFacilitator.js";
import { testUSDCAbi } from "./testUSDCAbi.js";

export interface StartLocalStackOptions {
  /** anvil's port on 127.0.0.1; default a free one. */
  port?: number;
  /** The facilitator's port on 127.0.0.1; default a free one. */
  facilitatorPort?: number;
  /** Schemes the facilitator serves (default `["exact", "exact-pq"]`). */
  schemes?: LocalScheme[];
  /** TestUSDC minted to the payer, in the smallest unit (6 decimals); default 1 000 USDC. */
  fundPayer?: bigint | string;
  /** Progress lines (anvil up, token deployed, facilitator listening, each verify/settle). */
  log?: (line: string) => void;
  /** SQLite file of the layer-2 stand-in's recorded payers (default in memory). */
  layer2File?: string;
  /** Delay between a settlement and the payer's recording on layer 2, in ms (default 5 000). */
  recordDelayMs?: number;
  /** Also start the LOCAL Solana engine, and have the facilitator settle `exact` on it (default false). */
  solana?: boolean;
}

/**
 * A whole x402 payment stack on this machine, no internet needed. The accounts are anvil's
 * well-known dev accounts (mnemonic "test test … junk"): public test keys, never for real funds.
 */
export interface LocalStack {
  /** anvil's JSON-RPC URL, `http://127.0.0.1:<port>`. */
  rpcUrl: string;
  /** viem chain (id 31337) pointing at `rpcUrl`. */
  chain: Chain;
  /** CAIP-2 id of the chain: `eip155:31337`. */
  network: Network;
  /** viem public client on the chain (fast polling). */
  publicClient: PublicClient;
  accounts: {
    /** Sends settlement transactions (anvil account 0; also deployed and minted the token). */
    facilitator: DevAccount;
    /** Holds `fundPayer` TestUSDC; give its key to the paying client (anvil account 1). */
    payer: DevAccount;
    /** Where the paywall's `payTo` should point (anvil account 2); starts with 0 TestUSDC. */
    payee: DevAccount;
  };
  /** The deployed EIP-3009 token: `asset` = `address`, `extra` = `{ name, version }`. */
  token: TestToken;
  /** Base URL of the facilitator (`/verify`, `/settle`, `/supported`). */
  facilitatorUrl: string;
  /** The running facilitator (call counts, `stop()` to simulate an outage). */
  facilitator: RunningFacilitator;
  /** The local stand-in for a Starknet node, with the recognition registry `est_ouverte` reads. */
  layer2: RunningStarknetStandIn;
  /**
   * Writes payers to the stand-in's registries `recordDelayMs` after it is handed them. Nothing feeds it
   * by itself (a settlement at the facilitator records nothing): `npm start` hands it the gateway's paid
   * events that qualify (a recognized route, this merchant's payee, at least the price).
   */
  recorder: PayerRecorder;
  /** The LOCAL Solana engine (test USDC, payer, payee, fee payer), when started with `solana: true`. */
  solana?: RunningSolanaEngine;
  /** TestUSDC balance of `address`, in the smallest unit. */
  balanceOf(address: Hex): Promise<bigint>;
  /** Stops the facilitator, anvil and the layer-2 stand-in (pending recordings are dropped). Safe to call twice. */
  stop(): Promise<void>;
}

/** 1 000 USDC at 6 decimals. */
export const DEFAULT_PAYER_FUNDS = 1_000_000_000n;

/**
 * Starts anvil, deploys and funds TestUSDC, installs a Multicall3 `tryAggregate` (for the facilitator's
 * failure diagnostics), serves a facilitator on loopback, and a local stand-in for a Starknet node with
 * a recorder that writes the payers it is handed `recordDelayMs` later.
 */
export async function startLocalStack(options: StartLocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log;
  const accounts = {
    facilitator: devAccount(DEV_ACCOUNT_INDEX.facilitator),
    payer: devAccount(DEV_ACCOUNT_INDEX.payer),
    payee: devAccount(DEV_ACCOUNT_INDEX.payee),
  };
  const layer2 = await startStarknetStandIn({ file: options.layer2File, log });
  const recorder = new PayerRecorder({
    record: ({ payer, contract }) => layer2.record(payer, contract),
    delayMs: options.recordDelayMs,
    log,
  });
  const stopLayer2 = () => {
    recorder.stop();
    return layer2.stop();
  };
  let anvil: Awaited<ReturnType<typeof startAnvil>>;
  try {
    anvil = await startAnvil({ port: options.port, log });
  } catch (error) {
    await stopLayer2();
    throw error;
  }
  let facilitator: RunningFacilitator | undefined;
  let solana: RunningSolanaEngine | undefined;
  try {
    if (options.solana) solana = await startSolanaEngine({ log });
    const token = await deployTestToken({
      rpcUrl: anvil.rpcUrl,
      chain: anvil.chain,
      publicClient: anvil.publicClient,
      deployerPrivateKey: accounts.facilitator.privateKey,
      mint: [{ to: accounts.payer.address, amount: BigInt(options.fundPayer ?? DEFAULT_PAYER_FUNDS) }],
      log,
    });
    await installMulticall3({
      rpcUrl: anvil.rpcUrl,
      chain: anvil.chain,
      publicClient: anvil.publicClient,
      deployerPrivateKey: accounts.facilitator.privateKey,
    });
    if (options.schemes?.includes("upto"))
      await installUptoContracts({
        rpcUrl: anvil.rpcUrl,
        chain: anvil.chain,
        publicClient: anvil.publicClient,
        deployerPrivateKey: accounts.facilitator.privateKey,
      });
    facilitator = await startFacilitator({
      rpcUrl: anvil.rpcUrl,
      chain: anvil.chain,
      privateKey: accounts.facilitator.privateKey,
      schemes: options.schemes,
      port: options.facilitatorPort,
      log,
      ...(solana && {
        solana: { network: solana.network, rpcUrl: solana.rpcUrl, feePayer: solana.accounts.feePayer.signer },
      }),
    });
    const running = facilitator;
    let stopped: Promise<void> | undefined;
    return {
      rpcUrl: anvil.rpcUrl,
      chain: anvil.chain,
      network: running.network,
      publicClient: anvil.publicClient,
      accounts,
      token,
      facilitatorUrl: running.url,
      facilitator: running,
      layer2,
      recorder,
      ...(solana && { solana }),
      balanceOf: (address) =>
        anvil.publicClient.readContract({
          address: token.address,
          abi: testUSDCAbi,
          functionName: "balanceOf",
          args: [address],
        }),
      stop: () =>
        (stopped ??= running
          .stop()
          .finally(() => solana?.stop())
          .finally(() => anvil.stop())
          .finally(stopLayer2)),
    };
  } catch (error) {
    await facilitator?.stop();
    await solana?.stop();
    await anvil.stop();
    await stopLayer2();
    throw error;
  }
}
