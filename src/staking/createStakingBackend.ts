import express from "express";
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import pino from "pino";
import type { Logger } from "pino";
import { buildOpenApiDocument } from "./buildOpenApiDocument.js";
import type { ChainAdapter } from "./ChainAdapter.js";
import {
  InternalError,
  InvalidJsonError,
  InvalidRequestError,
  PayloadTooLargeError,
  RouteNotFoundError,
  StakingError,
  stakingErrorBody,
} from "./errors.js";
import { parseFelt } from "./felt.js";
import { LocalAdapter } from "./local/LocalAdapter.js";
import { parseInput } from "./parseInput.js";
import {
  addToPoolBodySchema,
  memberBodySchema,
  stakeBodySchema,
  tokenQuerySchema,
  unstakeIntentBodySchema,
  userAddressParamsSchema,
} from "./requestSchemas.js";
import { stakingConfigSchema, type StakingConfig, type StakingConfigInput } from "./stakingConfigSchema.js";
import { stakingRoutes } from "./stakingRoutes.js";
import { StakingService } from "./StakingService.js";
import { StarknetAdapter } from "./starknet/StarknetAdapter.js";
import type { TokenInfo } from "./tokens.js";

/** Version of the API (the descriptor's `version`). */
export const STAKING_API_VERSION = "1.0.0";

export interface StakingBackendOptions {
  /** The config (as in a file: every key optional, defaults applied here). */
  config?: StakingConfigInput;
  /** Milliseconds since the Unix epoch; defaults to `Date.now`. The local adapter's time. */
  clock?: () => number;
  /** Defaults to a silent logger. */
  logger?: Logger;
  /** `fetch` for the Starknet adapter's RPC calls; defaults to the global one. */
  fetch?: typeof fetch;
  /** Use this adapter instead of building one from the config. */
  adapter?: ChainAdapter;
}

export interface StakingBackend {
  /** The Express app: mount it or `listen` it. */
  app: express.Express;
  service: StakingService;
  /** The config with defaults applied. */
  config: StakingConfig;
  /** The OpenAPI 3.1 document served at `/openapi.json`. */
  openApi: Record<string, unknown>;
  /** Release the adapter (closes the SQLite file). */
  close(): void;
}

/**
 * The staking backend of docs/staking-backend.md: descriptor, health, ping, the operations, metrics and APR.
 */
export function createStakingBackend(options: StakingBackendOptions = {}): StakingBackend {
  const parsed = stakingConfigSchema.safeParse(options.config ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new RangeError(`invalid staking backend config: ${issues.join("; ")}`, { cause: parsed.error });
  }
  const config = parsed.data;
  const logger = options.logger ?? pino({ level: "silent" });
  const tokens: TokenInfo[] = config.tokens.map((t) => ({
    symbol: t.symbol,
    address: parseFelt(t.address),
    decimals: t.decimals,
    kind: t.symbol.toUpperCase() === "STRK" ? "strk" : "btc",
  }));
  const adapter = options.adapter ?? buildAdapter(config, tokens, options);
  const service = new StakingService({ adapter, prices: config.prices, btcShareBps: config.btcShareBps });
  // An absolute URL, as the descriptor's field says: from publicUrl, else from the host the client asked
  // for (a trusted proxy's X-Forwarded-Host/-Proto, e.g. the gateway's; otherwise the request's own Host).
  const documentationOf = (req: Request) =>
    `${config.publicUrl?.replace(/\/+$/, "") ?? `${req.protocol}://${req.host ?? "localhost"}`}/openapi.json`;
  const openApi = buildOpenApiDocument({
    routes: stakingRoutes,
    title: config.name,
    description: config.description,
    version: STAKING_API_VERSION,
    ...(config.publicUrl ? { serverUrl: config.publicUrl } : {}),
  });

  const app = express();
  app.disable("x-powered-by");
  // Rule 1 of docs/staking-backend.md: only the literal segment `validator` selects the validator's metrics;
  // `/api/metrics/Validator` is a user address. Express matches literals in any case unless told otherwise.
  app.set("case sensitive routing", true);
  if (config.trustProxy.length > 0) app.set("trust proxy", config.trustProxy);
  app.use(express.json({ limit: config.maxBodyBytes, strict: true }));

  const descriptor: RequestHandler = (req, res) => {
    res.json({
      success: true,
      name: config.name,
      version: STAKING_API_VERSION,
      description: config.description,
      adapter: adapter.kind,
      endpoints: Object.fromEntries(stakingRoutes.map((r) => [r.key, `${r.method} ${r.path}`])),
      documentation: documentationOf(req),
    });
  };
  app.get("/", descriptor);
  app.get("/api", descriptor);
  app.get("/openapi.json", (_req, res) => {
    res.json(openApi);
  });

  const handlers: Record<string, (req: Request) => Promise<unknown> | unknown> = {
    health: () => ({ status: "ok", adapter: adapter.kind }),
    ping: () => ({ message: "pong", timestamp: new Date(options.clock?.() ?? Date.now()).toISOString() }),
    stake: (req) => service.stake(parseInput(stakeBodySchema, req.body, "body")),
    addToPool: (req) => service.addToPool(parseInput(addToPoolBodySchema, req.body, "body")),
    unstakeIntent: (req) => service.unstakeIntent(parseInput(unstakeIntentBodySchema, req.body, "body")),
    unstakeAction: (req) => service.unstakeAction(parseInput(memberBodySchema, req.body, "body")),
    claim: (req) => service.claim(parseInput(memberBodySchema, req.body, "body")),
    restake: (req) => service.restake(parseInput(memberBodySchema, req.body, "body")),
    validatorMetrics: () => service.validatorMetrics(),
    userMetrics: (req) => {
      const params = parseInput(userAddressParamsSchema, { ...req.params }, "params");
      const query = parseInput(tokenQuerySchema, { ...req.query }, "query");
      return service.userMetrics(params.userAddress, query.tokenAddress);
    },
    apy: (req) => service.apy(parseInput(tokenQuerySchema, { ...req.query }, "query").tokenAddress),
  };
  // stakingRoutes lists /api/metrics/validator before /api/metrics/:userAddress, so the validator route wins.
  for (const route of stakingRoutes) {
    const handler = handlers[route.key]!;
    const method = route.method === "GET" ? "get" : "post";
    app[method](route.path, async (req, res) => {
      const data = await handler(req);
      if (route.key === "health" || route.key === "ping") res.json({ success: true, ...(data as object) });
      else res.json({ success: true, data });
    });
  }

  app.use((req, _res, next) => next(new RouteNotFoundError(req.method, req.path)));
  const onError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    const failure = toStakingError(error, config.maxBodyBytes);
    if (failure.status >= 500) logger.error({ err: error, path: req.path }, failure.message);
    else logger.debug({ code: failure.code, path: req.path }, failure.message);
    res.status(failure.status).json(stakingErrorBody(failure));
  };
  app.use(onError);

  return { app, service, config, openApi, close: () => adapter.close() };
}

function toStakingError(error: unknown, maxBodyBytes: number): StakingError {
  if (error instanceof StakingError) return error;
  const type = (error as { type?: unknown } | null)?.type;
  if (type === "entity.parse.failed") return new InvalidJsonError();
  if (type === "entity.too.large") return new PayloadTooLargeError(maxBodyBytes);
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof type === "string" && typeof status === "number" && status >= 400 && status < 500) {
    // Any other body-parser refusal (unsupported charset or encoding, size mismatch, aborted upload).
    return new InvalidRequestError(`The request body could not be read (${type})`);
  }
  return new InternalError(error);
}

function buildAdapter(
  config: StakingConfig,
  tokens: TokenInfo[],
  options: StakingBackendOptions,
): ChainAdapter {
  if (config.adapter === "starknet") {
    if (!config.starknet)
      throw new Error("config: adapter is starknet but the `starknet` section is missing");
    return new StarknetAdapter({
      config: config.starknet,
      tokens,
      clock: options.clock ?? Date.now,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }
  return new LocalAdapter({
    config: config.local,
    tokens,
    btcShareBps: config.btcShareBps,
    clock: options.clock ?? Date.now,
  });
}
