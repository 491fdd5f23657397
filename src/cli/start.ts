// `npm start`: the whole product on one machine — local payment stack, staking backend, and the gateway
// with config/gateway.yaml in front of it. Prints the gateway URL, the priced routes and a pay command.
import { randomBytes } from "node:crypto";
import { chmod, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { buildRouteTable } from "../pricing/buildRouteTable.js";
import { ConfigError } from "../config/ConfigError.js";
import { loadConfig } from "../config/loadConfig.js";
import { logFormatFrom } from "../common/logFormat.js";
import { prettyLogStream } from "../common/prettyLogStream.js";
import { findFreePort } from "../dev/findFreePort.js";
import { DEFAULT_RECORD_DELAY_MS } from "../dev/PayerRecorder.js";
import { startLocalStack, type LocalStack } from "../dev/startLocalStack.js";
import { STAND_IN_CHAIN_NAME, STAND_IN_NOTICE } from "../dev/startStarknetStandIn.js";
import { SOLANA_ENGINE_NOTICE } from "../dev/startSolanaEngine.js";
import { starknetDevPayerAccount } from "../dev/starknetDevAccounts.js";
import { CBOR_DEV_BALANCES, cborDevPayer } from "../dev/cborDevPayers.js";
import { startCborFacilitator, type RunningCborFacilitator } from "../dev/startCborFacilitator.js";
import { createGateway } from "../gateway/createGateway.js";
import { createGatewayLogger } from "../gateway/createGatewayLogger.js";
import { listenGateway, type RunningGateway } from "../gateway/listenGateway.js";
import { listenStakingBackend, type ListeningStakingBackend } from "../staking/index.js";
import { recordOnStandIn } from "../dev/recordOnStandIn.js";
import { agentPayLines } from "./start/agentPayLines.js";
import { formatPricedRoutes } from "./start/formatPricedRoutes.js";
import { formatRecognitionLoop, recognizedRoutes } from "./start/formatRecognitionLoop.js";
import { startDemoQuoteUpstream, type DemoQuoteUpstream } from "./start/startDemoQuoteUpstream.js";

const USAGE = `Usage: npm start [-- --config <file>] [-- --data <sqlite file>]

Starts, on this machine only: anvil with a test token (TestUSDC) and an x402 facilitator (which also
settles on a LOCAL Solana engine: LiteSVM with a test USDC mint and a funded payer), a local
application/x402+cbor facilitator (test balances, stand-in proof), a local stand-in for a Starknet
node (the layer-2 registry the facilitator records payers in), the staking backend on its local
simulated validator, and the x402 gateway in front of it (config/gateway.yaml).
Prints the gateway URL, the priced routes, and \`npm run pay\` commands that pay with a funded test key.
Ctrl-C stops everything.

  --config  gateway config (default config/gateway.yaml)
  --data    the staking backend's SQLite file (default data/staking.sqlite); the layer-2 stand-in
            and the CBOR facilitator keep theirs next to it, and the CBOR facilitator's merchant token
            (cbor-merchant.token, mode 0600: what npm run refund sends) is written there each start
  --help    this text

Environment: X402_GATEWAY_PORT (default 8402; 0 picks a free port), X402_RECORD_DELAY_MS (how long
after a settlement the payer is recorded on layer 2; default ${DEFAULT_RECORD_DELAY_MS}), LOG_LEVEL (default info), LOG_FORMAT (default pretty; json writes
one JSON object per log line).`;

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({
      options: {
        config: { type: "string" },
        data: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`npm start: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const configFile = values.config ?? "config/gateway.yaml";
  const dataFile = values.data ?? "data/staking.sqlite";
  const delayText = process.env.X402_RECORD_DELAY_MS;
  const recordDelayMs = delayText === undefined || delayText === "" ? undefined : Number(delayText);
  if (recordDelayMs !== undefined && !(/^[0-9]+$/.test(delayText!) && Number.isSafeInteger(recordDelayMs))) {
    console.error(
      `npm start: X402_RECORD_DELAY_MS must be a whole number of ms (0 or more), got ${JSON.stringify(delayText)}`,
    );
    return 2;
  }
  const cleanups: Array<() => Promise<void> | void> = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`while stopping: ${(error as Error).message}`);
      }
    }
  };
  let stopping: Promise<void> | undefined;
  const stopped = new Promise<number>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return;
      console.log(
        `\n${signal}: stopping the gateway (finishing in-flight payments), the backend and the local chain…`,
      );
      stopping = stopAll().then(() => {
        console.log("stopped.");
        resolve(0);
      });
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });

  try {
    console.log("starting the local payment stack (anvil, TestUSDC, facilitator, layer-2 stand-in)…");
    const stack: LocalStack = await startLocalStack({
      log: (line) => console.log(`  ${line}`),
      layer2File: join(dirname(dataFile), "layer2.sqlite"),
      recordDelayMs,
      solana: true,
    });
    cleanups.push(() => stack.stop());
    const solana = stack.solana!;
    // The LOCAL Solana engine's payer, as a Solana CLI keypair file (owner-only): what npm run pay -- --solana reads.
    const solanaKeypairFile = join(dirname(dataFile), "solana-payer.json");
    await writeFile(solanaKeypairFile, JSON.stringify([...solana.accounts.payer.keypairBytes]), {
      mode: 0o600,
    });
    await chmod(solanaKeypairFile, 0o600);

    const staking: ListeningStakingBackend = await listenStakingBackend({
      // Its descriptor names the URL clients used: the gateway's (X-Forwarded-* from the gateway on loopback).
      config: { adapter: "local", local: { dataFile }, trustProxy: ["loopback"] },
      logger: pino({ level: process.env.LOG_LEVEL ?? "warn" }, logStream()),
      host: "127.0.0.1",
      port: 0,
    });
    cleanups.push(() => staking.close());
    const stakingUrl = staking.url;

    const cborFacilitator: RunningCborFacilitator = await startCborFacilitator({
      file: join(dirname(dataFile), "cbor-facilitator.sqlite"),
      accounts: [
        ...(["ed25519", "ml-dsa-65"] as const).map((algorithm) => ({
          publicKey: cborDevPayer(algorithm).publicKey,
          balances: CBOR_DEV_BALANCES,
        })),
        // The layer-2 demo payer: the stand-in's dev account 0 (npm run pay -- --cbor --signer starknet).
        { ...starknetDevPayerAccount(stack.layer2.devAccounts[0]!), balances: CBOR_DEV_BALANCES },
      ],
      layerTwo: { chainId: STAND_IN_CHAIN_NAME, rpcUrl: stack.layer2.url },
      // EIP-1271 contract wallets on anvil, as the gateway (its rpcUrls) asks them.
      evmRpcUrl: stack.rpcUrl,
      log: (line) => console.log(`  ${line}`),
    });
    cleanups.push(() => cborFacilitator.stop());
    // The merchant's refund credential, for npm run refund only: owner-only, a fresh token each start.
    const merchantTokenFile = resolve(dirname(dataFile), "cbor-merchant.token");
    await writeFile(merchantTokenFile, `${cborFacilitator.merchantToken}\n`, { mode: 0o600 });
    await chmod(merchantTokenFile, 0o600);

    const quote: DemoQuoteUpstream = await startDemoQuoteUpstream();
    cleanups.push(() => quote.close());

    // Recognition binds sign-in proofs to publicUrl: the gateway's own address, so its port is known first.
    const host = process.env.X402_GATEWAY_HOST || "127.0.0.1";
    const port =
      process.env.X402_GATEWAY_PORT === "0"
        ? String(await findFreePort(host))
        : process.env.X402_GATEWAY_PORT || "8402";
    const config = await loadConfig(configFile, {
      env: {
        ...process.env,
        X402_GATEWAY_PORT: port,
        // A free port for the metrics too when the gateway was asked for one (tests run several at once).
        X402_METRICS_PORT:
          process.env.X402_GATEWAY_PORT === "0" ? "0" : process.env.X402_METRICS_PORT || "9402",
        X402_PUBLIC_URL:
          process.env.X402_PUBLIC_URL || `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
        X402_STARKNET_RPC_URL: stack.layer2.url,
        X402_RECOGNITION_CONTRACT: stack.layer2.contract,
        X402_FACILITATOR_URL: stack.facilitatorUrl,
        X402_RPC_URL: stack.rpcUrl,
        X402_ASSET: stack.token.address,
        X402_PAY_TO: stack.accounts.payee.address,
        STAKING_BACKEND_URL: stakingUrl,
        X402_DEMO_QUOTE_URL: quote.url,
        X402_CBOR_FACILITATOR_URL: cborFacilitator.url,
      },
    });
    // GET /api/apy also takes Solana: the same price in USDC on the LOCAL engine's mint, to its payee.
    const apy = config.routes["GET /api/apy"];
    if (apy !== undefined && apy.price !== undefined) {
      const option = { network: solana.network, payTo: solana.accounts.payee.address, price: apy.price };
      apy.accepts = [...(apy.accepts ?? []), option];
      config.rpcUrls = { ...config.rpcUrls, [solana.network]: solana.rpcUrl };
      // The browser page reads the engine too (a Wallet Standard Solana wallet pays there).
      config.paywall = {
        ...config.paywall,
        solanaRpcUrls: { ...config.paywall.solanaRpcUrls, [solana.network]: solana.rpcUrl },
      };
    }
    // The admin endpoint (revocations), on loopback with a fresh token each start: the demo's refund step.
    const adminToken = randomBytes(32).toString("hex");
    config.admin = { ...config.admin, enabled: true, token: adminToken };
    const logger = createGatewayLogger(config.logging.level, logStream());
    // The seed's loop, honestly: a payer is recorded only from the gateway's paid event, for a recognized
    // route, paid to this merchant for at least its price, in that route's own registry contract.
    const onPaid = recordOnStandIn(config, stack, (line) => logger.warn(line));
    const gateway: RunningGateway = await listenGateway(
      createGateway(config, { logger, paywallOverrides: { onPaid } }),
    );
    cleanups.push(() => gateway.close());

    const routes = buildRouteTable(config).routes;
    const decimals = stack.token.decimals;
    // The token's name as the offers and the paywall page give it: the configured asset's symbol.
    const symbol =
      config.assets?.find(
        (asset) => asset.network === config.network && sameAddress(asset.address, stack.token.address),
      )?.symbol ?? "TestUSDC";
    const units = (amount: string) => {
      const value = BigInt(amount);
      const scale = 10n ** BigInt(decimals);
      const fraction = (value % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
      return `${value / scale}${fraction ? `.${fraction}` : ""}`;
    };
    const lines = [
      "",
      "x402 gateway ready — local demo: anvil chain eip155:31337, test token, test keys; nothing here is real money.",
      "",
      `  gateway          ${gateway.url}`,
      ...(gateway.metricsUrl
        ? [`  metrics          ${gateway.metricsUrl}  (Prometheus; loopback only)`]
        : []),
      `  staking backend  ${stakingUrl}  (upstream; local simulated validator, ${dataFile})`,
      `  quote upstream   ${quote.url}`,
      `  facilitator      ${stack.facilitatorUrl}`,
      `  cbor facilitator ${cborFacilitator.url}  (application/x402+cbor; STAND-IN proof, not a STARK verifier)`,
      `  anvil            ${stack.rpcUrl}`,
      `  layer-2 node     ${stack.layer2.rpcUrl}  (${STAND_IN_NOTICE})`,
      `  solana engine    ${solana.rpcUrl}  (${SOLANA_ENGINE_NOTICE}; ${solana.network}, test USDC ${solana.mint})`,
      ...recognizedRoutes(config).map(
        (route) => `  recognition      contract ${route.contract} est_ouverte; route ${route.key}`,
      ),
      `  token            ${symbol} ${stack.token.address} (${decimals} decimals), payee ${config.payTo}`,
      "",
      "Priced routes (anything else is proxied free: GET /, /api, /health, /ping; the gateway's own",
      `/healthz and /readyz are outside the price table; metrics are on their own listener). "settles first": the`,
      "payment settles before the backend runs the operation (irreversible work); the others settle on a 2xx:",
      ...formatPricedRoutes(routes, units, symbol),
      "",
      "Pay for GET /api/apy with the funded test payer (anvil account 1, a public test key):",
      `  EVM_PRIVATE_KEY=${stack.accounts.payer.privateKey} npm run pay -- ${gateway.url}/api/apy`,
      "",
      "Pay for GET /api/apy on Solana (the LOCAL engine; its payer's keypair file, a public test key; the",
      "facilitator pays the fee), with the official @x402/svm client; prints the transaction's signature:",
      `  SOLANA_RPC_URL=${solana.rpcUrl} npm run pay -- --solana --keypair ${solanaKeypairFile} ${gateway.url}/api/apy`,
      "",
      "Or from your own code, with the official @x402/fetch (examples/fetch-client.ts, as in the README):",
      `  EVM_PRIVATE_KEY=${stack.accounts.payer.privateKey} X402_ASSET=${stack.token.address} X402_URL=${gateway.url}/api/apy npx tsx examples/fetch-client.ts`,
      "",
      "The demo quote route offers both schemes; pay it with either:",
      ...(["exact", "exact-pq"] as const).map(
        (scheme) =>
          `  EVM_PRIVATE_KEY=${stack.accounts.payer.privateKey} npm run pay -- --scheme ${scheme} ${gateway.url}/x402-anvil/v1/quote`,
      ),
      "",
      "Pay for GET /api/apy in application/x402+cbor (Ed25519 demo payer; --alg ml-dsa-65 for ML-DSA-65):",
      `  npm run pay -- --cbor ${gateway.url}/api/apy --facilitator ${cborFacilitator.url}`,
      "Refund a CBOR payment, as the merchant (its token file, mode 0600; the payer is credited back once and",
      "the facilitator signs a revocation; a payer holding only the receipt is refused):",
      `  npm run refund -- --facilitator ${cborFacilitator.url} --merchant-token-file ${merchantTokenFile} <the receipt base64 npm run pay prints>`,
      "",
      ...(await agentPayLines(stack, {
        dataDir: dirname(dataFile),
        gatewayUrl: gateway.url,
        cborFacilitatorUrl: cborFacilitator.url,
        solanaKeypairFile,
      })),
      "",
      "GET /api/metrics/validator has the humanity gate on: a CBOR payer also sends a humanity claim. The",
      "command asks the CBOR facilitator's DEMO issuer (POST /humanity; it vouches for anyone) for one:",
      `  npm run pay -- --cbor ${gateway.url}/api/metrics/validator --facilitator ${cborFacilitator.url}`,
      "",
      "The demo quote route's CBOR offer has a revelation mask: the payer's key goes HPKE-encrypted to the",
      "CBOR facilitator (its key is at /supported) and the receipt commits to it; the gateway never sees it:",
      `  npm run pay -- --cbor ${gateway.url}/x402-anvil/v1/quote --facilitator ${cborFacilitator.url}`,
      "",
      ...formatRecognitionLoop({
        config,
        gatewayUrl: gateway.url,
        payer: stack.accounts.payer,
        layer2: stack.layer2,
        recordDelayMs: stack.recorder.delayMs,
        adminToken,
        cbor: { facilitatorUrl: cborFacilitator.url, layerTwoAccount: stack.layer2.devAccounts[0]!.address },
      }),
      "Ctrl-C stops everything.",
      "",
    ];
    console.log(lines.join("\n"));
  } catch (error) {
    if (error instanceof ConfigError) console.error(error.message);
    else if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      console.error(
        `npm start: ${(error as Error).message}: another gateway may be running; stop it, or set X402_GATEWAY_PORT (0 picks a free port)`,
      );
    } else console.error(`npm start failed: ${(error as Error).stack ?? String(error)}`);
    await stopAll();
    return 1;
  }
  return stopped;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** `npm start` runs in a terminal: readable log lines unless LOG_FORMAT=json asks for the service format. */
function logStream() {
  return logFormatFrom(process.env.LOG_FORMAT, "pretty") === "pretty" ? prettyLogStream() : undefined;
}
