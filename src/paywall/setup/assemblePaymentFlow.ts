import { HookRunner } from "../flow/HookRunner.js";
import { reportExtensionResponses } from "./reportExtensionResponses.js";
import type { PaymentHooks } from "../flow/PaymentHooks.js";
import { describeIssues } from "../../protocol/describeIssues.js";
import { HttpFacilitator } from "../../facilitator/HttpFacilitator.js";
import type { Facilitator } from "../../facilitator/Facilitator.js";
import { MemoryPaymentLedger } from "../../ledger/MemoryPaymentLedger.js";
import {
  countsGrants,
  isPaymentLedger,
  type LedgerHealth,
  type PaymentLedger,
} from "../../ledger/PaymentLedger.js";
import { DELEGATION_DEFAULTS } from "../../protocol/cbor/checkDelegationChain.js";
import { RedisPaymentLedger } from "../../ledger/RedisPaymentLedger.js";
import { buildRouteTable } from "../../pricing/buildRouteTable.js";
import type { RouteTable } from "../../pricing/RouteTable.js";
import { RouteConfigError, type PricedRoute } from "../../pricing/RouteTable.js";
import type { SignInGate } from "../../recognition/SignInGate.js";
import { createSignInGateResolver } from "../../recognition/createSignInGateResolver.js";
import type { SignInGateDeps } from "../../recognition/createSignInGate.js";
import { RedisNonceStore } from "../../recognition/RedisNonceStore.js";
import { redisKeyPrefixes } from "../../recognition/redisKeyPrefixes.js";
import { MemoryRevokedPayers } from "../../recognition/MemoryRevokedPayers.js";
import { RedisRevokedPayers } from "../../recognition/RedisRevokedPayers.js";
import type { RevokedPayers } from "../../recognition/RevokedPayers.js";
import type { RevocationRequest } from "../../recognition/parseRevocationRequest.js";
import { revokePayer, type RevocationReceipt } from "../../recognition/revokePayer.js";
import { parsePublicKeys } from "../../protocol/cbor/publicKeyList.js";
import { revocationHoldMs } from "../../recognition/revocationSettings.js";
import { ledgerWaitOf, type LedgerSettings } from "../../ledger/ledgerSettings.js";
import { EvmSettlementChecker } from "../../facilitator/EvmSettlementChecker.js";
import { isLoopbackHost } from "../../common/isLoopbackHost.js";
import { silentLogger, type Logger } from "../../common/Logger.js";
import { firstCovering, type SettlementChecker } from "../../facilitator/SettlementChecker.js";
import { SvmSettlementChecker } from "../../facilitator/SvmSettlementChecker.js";
import {
  x402OptionsSchema,
  type LoadRequestBodySchema,
  type PaywallOptions,
  type ResolvedX402Options,
} from "./options.js";
import { StartupChecks } from "./StartupChecks.js";
import { FacilitatorSupportError } from "./FacilitatorSupportError.js";
import { compileBodyValidator } from "../../pricing/compileBodyValidator.js";
import { DEFAULTS, type RequireTls } from "../page/paywallSettingsSchema.js";
import { recognitionsOf } from "../../recognition/recognitionsOf.js";
import { PaymentFlow } from "../flow/PaymentFlow.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import { X402OptionsError } from "./X402OptionsError.js";
import { CborPaymentWire } from "../wires/CborPaymentWire.js";
import type { EvmSignerOptions } from "../../signers/EvmSigner.js";
import { SignerRegistry } from "../../signers/SignerRegistry.js";
import { CBOR_DEFAULTS } from "../../pricing/cborRouteSettings.js";
import { isCborFacilitator } from "../../facilitator/CborFacilitator.js";
import { AssetTable } from "../../pricing/knownAssets.js";
import { routesAsTable } from "../../pricing/routesAsTable.js";
import { PaywallPage } from "../page/PaywallPage.js";
import { buildPasses } from "./buildPasses.js";
import { buildFacilitator, readSupport, type SupportReport } from "./buildFacilitator.js";

export type { SupportReport };

/** The payment flow `x402()` builds from its options, with what it opened: shared by every adapter. */
export interface AssembledPaymentFlow {
  flow: PaymentFlow;
  routes: readonly PricedRoute[];
  checkSupport(): Promise<SupportReport>;
  close(): Promise<void>;
  revoke(request: RevocationRequest): Promise<RevocationReceipt>;
  /** The ledger's health check within `timeoutMs`; undefined when the ledger has none (in memory). */
  ledgerHealth(timeoutMs: number): Promise<LedgerHealth | undefined>;
  /**
   * Resolves once the start-up checks passed (OpenAPI request-body schemas loaded; `/supported` with
   * `facilitatorSupport: "require"`); rejects with what failed. Until then priced requests wait, then get
   * `503 paywall_unavailable`.
   */
  ready(): Promise<void>;
}

/**
 * Build the framework-free payment flow from `x402()` options (validated here). `nativeRequest` turns
 * the Node request into what a `requireTls` function is documented to receive.
 */
export function assemblePaymentFlow<R>(
  options: PaywallOptions<R>,
  nativeRequest: (req: RequestFacts["raw"]) => R,
): AssembledPaymentFlow {
  const parsed = x402OptionsSchema.safeParse(routesAsTable(options));
  if (!parsed.success) throw new X402OptionsError(describeIssues(parsed.error));
  const settings = parsed.data;
  const routes = compileRoutes(settings);
  const now = settings.now ?? Date.now;
  const logger = settings.logger ?? silentLogger;
  const facilitator = buildFacilitator(settings, routes.routes);
  const ledger = buildLedger(settings, now);
  const ledgerSettings = isPaymentLedger(settings.ledger) ? undefined : settings.ledger;
  // Sign-in nonces live where payments do: in Redis when instances share a Redis ledger.
  const nonceStore =
    ledgerSettings?.type === "redis"
      ? new RedisNonceStore({
          redis: ledgerSettings,
          keyPrefix: redisKeyPrefixes(ledgerSettings).nonces,
          commandTimeoutMs: ledgerSettings.commandTimeoutMs,
          logger,
        })
      : undefined;
  const revokedPayers = buildRevokedPayers(settings, ledgerSettings, logger, now);
  const gates = buildSignInGates(routes.routes, settings, {
    fetch: settings.fetch,
    now,
    logger,
    nonceStore,
    observer: settings.observer,
    revokedPayers,
  });
  const signInGateFor = (route: PricedRoute): SignInGate | undefined => gates.get(route);
  const secretless = recognitionsOf(settings).some((recognition) => recognition.signInSecret === undefined);
  if (nonceStore && secretless) {
    logger.warn(
      {},
      "recognition.signInSecret is unset with a shared (Redis) ledger: each instance makes its own, so a challenge from one is refused at another; set the same secret everywhere",
    );
  }
  const requireTls = settings.requireTls as RequireTls<R>;
  const settlementChecker = buildSettlementChecker(settings, routes.routes, logger, now);
  const cbor = buildCborWire(settings, routes, { facilitator, ledger, now });
  const observer = settings.observer ?? {};
  const passes = buildPasses(settings.passes, routes.routes, ledger, { now, logger, observer });

  const startup = buildStartupChecks(settings, routes.routes, facilitator, logger, now);

  const flow = new PaymentFlow({
    startup,
    routes,
    facilitator,
    ledger,
    signInGateFor,
    logger,
    observer,
    onPaid: settings.onPaid,
    onError: settings.onError,
    hooks: new HookRunner(settings.hooks as PaymentHooks | undefined, logger),
    now,
    publicUrl: settings.publicUrl,
    allowedHosts: settings.allowedHosts,
    requireTls:
      typeof requireTls === "function"
        ? (req) => requireTls(nativeRequest(req.raw))
        : requireTls === "except-loopback"
          ? (req) => !isLoopbackHost(req.clientAddress)
          : () => requireTls,
    refuseLenientReadings: settings.refuseLenientReadings,
    settlementChecker,
    settlementCheckTimeoutMs: settings.settlementCheckTimeoutMs,
    settlementCheckIntervalMs: DEFAULTS.settlementCheckIntervalMs,
    maxHeldResponseBytes: settings.maxHeldResponseBytes,
    maxBodyBytes: settings.maxBodyBytes,
    paymentIdentifierWindowMs: settings.paymentIdentifierWindowMs,
    reservationTtlMs: settings.reservationTtlMs,
    spentTtlMs: DEFAULTS.spentTtlMs,
    cbor,
    passes,
    paywallPage: settings.paywall.enabled
      ? new PaywallPage({
          settings: settings.paywall,
          assets: new AssetTable(settings.assets ?? []),
          provider: settings.paywallProvider,
        })
      : undefined,
  });

  let support: Promise<SupportReport> | undefined;
  let closed = false;
  const checkSupport = (): Promise<SupportReport> =>
    (support ??= readSupport(facilitator, routes.routes).then((report) => {
      // A check still pending when the paywall closed is nobody's concern any more: no line after "stopped".
      if (closed) return report;
      if (report.error) logger.warn({ error: report.error }, "could not read the facilitator's /supported");
      for (const line of report.unsupported)
        logger.warn({ option: line }, "the facilitator does not support a route's payment option");
      return report;
    }));

  const close = async (): Promise<void> => {
    closed = true;
    // Everything is closed even when one fails; the first failure is reported.
    const outcomes = await Promise.allSettled([
      ledger !== settings.ledger ? ledger.close?.() : undefined,
      nonceStore?.close(),
      revokedPayers !== settings.revokedPayers ? revokedPayers.close() : undefined,
    ]);
    const failed = outcomes.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  };
  const revocationSigners = parsePublicKeys(
    settings.revocation?.trustedSigners ?? [],
    "revocation.trustedSigners",
  );
  const revoke = async (request: RevocationRequest): Promise<RevocationReceipt> => {
    const receipt = await revokePayer(revokedPayers, request, logger, revocationSigners);
    // A revoked (refunded) payer's passes end too, at every gateway sharing the ledger.
    if (passes !== undefined) await passes.endPasses(receipt.payer);
    return receipt;
  };
  const ledgerHealth = async (timeoutMs: number): Promise<LedgerHealth | undefined> =>
    ledger.health?.(timeoutMs);
  const ready = (): Promise<void> => startup?.ready() ?? Promise.resolve();
  return { flow, routes: routes.routes, checkSupport, close, revoke, ledgerHealth, ready };
}

/**
 * The checks that must pass before a priced request is taken, when there are any: each `requestBody: {
 * openApi: true }` route's schema loaded; with `facilitatorSupport: "require"`, `/supported` listing every
 * option. Started now, so they are done (or failed, and logged) before the first request comes.
 */
function buildStartupChecks(
  settings: ResolvedX402Options,
  routes: readonly PricedRoute[],
  facilitator: Facilitator,
  logger: Logger,
  now: () => number,
): StartupChecks | undefined {
  const fromOpenApi = routes.filter((route) => {
    const body = route.config.requestBody;
    return body !== undefined && !("schema" in body);
  });
  const load = settings.loadRequestBodySchema;
  if (fromOpenApi.length > 0 && load === undefined) {
    throw new X402OptionsError(
      fromOpenApi.map(
        (route) =>
          `routes[${JSON.stringify(route.key)}].requestBody.openApi: only the gateway reads an upstream's OpenAPI document (upstreams[].openApi); in code give requestBody: { schema }`,
      ),
    );
  }
  const requireSupport = settings.facilitatorSupport === "require";
  if (fromOpenApi.length === 0 && !requireSupport) return undefined;
  const run = async (): Promise<void> => {
    await Promise.all(
      fromOpenApi.map(async (route) => {
        try {
          const { method, key } = route.pattern;
          const path = method === undefined ? key : key.slice(method.length).trim();
          const { schema, root } = await (load as LoadRequestBodySchema)({ key, method, path });
          route.validateBody = compileBodyValidator(schema, root);
        } catch (error) {
          const message = `routes[${JSON.stringify(route.key)}].requestBody: ${(error as Error).message}`;
          throw Object.assign(new Error(message, { cause: error }), { check: "openApi" });
        }
      }),
    );
    if (requireSupport) {
      const report = await readSupport(facilitator, routes);
      if (!report.ok)
        throw Object.assign(new FacilitatorSupportError(report), { check: "facilitatorSupport" });
    }
  };
  const checks = new StartupChecks(async () => {
    try {
      await run();
    } catch (error) {
      logger.error({ err: error }, `a start-up check failed: ${(error as Error).message}`);
      throw error;
    }
  }, now);
  checks.ready().catch(() => undefined); // logged above; `ready()` and priced requests see it again
  return checks;
}

/**
 * Revoked payers: the given ones, else shared in Redis when the ledger is, else in memory. The hold
 * must outlast what any recognition cache may serve (TTL + stale-if-error).
 */
function buildRevokedPayers(
  settings: ResolvedX402Options,
  ledgerSettings: LedgerSettings | undefined,
  logger: Logger,
  now: () => number,
): RevokedPayers {
  if (settings.revokedPayers) return settings.revokedPayers;
  const holdMs = revocationHoldMs(settings.revocation?.holdMs, recognitionsOf(settings));
  const observer = settings.observer;
  if (ledgerSettings?.type === "redis") {
    return new RedisRevokedPayers({
      url: ledgerSettings.url,
      cluster: ledgerSettings.cluster,
      sentinel: ledgerSettings.sentinel,
      keyPrefix: redisKeyPrefixes(ledgerSettings, settings.revocation).revoked,
      commandTimeoutMs: ledgerSettings.commandTimeoutMs,
      holdMs,
      now,
      logger,
      observer,
    });
  }
  return new MemoryRevokedPayers({ holdMs, now, observer });
}

function compileRoutes(settings: ResolvedX402Options): RouteTable {
  try {
    return buildRouteTable(settings);
  } catch (error) {
    if (error instanceof RouteConfigError) throw new X402OptionsError([error.message]);
    throw error;
  }
}

/**
 * Each route's sign-in gate, built at start-up: a given `signInGate`, else the route's own
 * `recognition` settings, else the global ones; `recognition: false` turns it off for the route.
 */
function buildSignInGates(
  routes: readonly PricedRoute[],
  settings: ResolvedX402Options,
  deps: SignInGateDeps,
): Map<PricedRoute, SignInGate> {
  const resolve = createSignInGateResolver(settings.recognition, deps);
  const gates = new Map<PricedRoute, SignInGate>();
  for (const route of routes) {
    const { recognition } = route.config;
    if (recognition === false) continue;
    const gate = settings.signInGate ?? resolve(recognition);
    if (gate) gates.set(route, gate);
  }
  return gates;
}

/** The on-chain resolver of unknown settlements; warns now about networks it cannot resolve. */
function buildSettlementChecker(
  settings: ResolvedX402Options,
  routes: readonly PricedRoute[],
  logger: Logger,
  now: () => number,
): SettlementChecker | undefined {
  const checker =
    settings.settlementChecker ??
    (Object.keys(settings.rpcUrls).length > 0
      ? firstCovering([
          new EvmSettlementChecker({ rpcUrls: settings.rpcUrls, now }),
          new SvmSettlementChecker({ rpcUrls: settings.rpcUrls, fetch: settings.fetch }),
        ])
      : undefined);
  const uncovered = new Set(
    routes
      .flatMap((route) => route.requirements.map((option) => option.network))
      .filter((network) => !checker?.covers(network)),
  );
  if (uncovered.size > 0) {
    logger.warn(
      { networks: [...uncovered] },
      "no rpcUrls for these networks: a settlement that times out is answered 503 settlement_unknown until a retry settles it",
    );
  }
  return checker;
}

/** The CBOR format, when a route offers CBOR: its facilitator is `cborFacilitator`, `cbor.facilitator`, or the JSON one. */
function buildCborWire(
  settings: ResolvedX402Options,
  routes: RouteTable,
  deps: { facilitator: Facilitator; ledger: PaymentLedger; now: () => number },
): CborPaymentWire | undefined {
  if (!routes.routes.some((route) => route.cbor !== undefined)) return undefined;
  const cborSettings = settings.cbor?.facilitator;
  const facilitator =
    settings.cborFacilitator ??
    (cborSettings
      ? new HttpFacilitator({
          ...cborSettings,
          fetch: settings.fetch,
          onExtensionResponses: reportExtensionResponses(settings.logger ?? silentLogger, settings.observer),
        })
      : deps.facilitator);
  if (!isCborFacilitator(facilitator)) {
    throw new X402OptionsError([
      "cbor: routes offer application/x402+cbor but the facilitator instance has no verifyCbor/settleCbor: set cbor.facilitator or cborFacilitator",
    ]);
  }
  const delegation = settings.cbor?.delegation ?? { ...DELEGATION_DEFAULTS };
  if (delegation !== false && !countsGrants(deps.ledger)) {
    throw new X402OptionsError([
      "cbor.delegation: the ledger has no chargeGrants, so grant caps cannot be held across payments: give the ledger chargeGrants (docs/cbor.md, Delegation) or set cbor.delegation: false to refuse delegation chains",
    ]);
  }
  const skewSeconds = settings.cbor?.skewSeconds ?? CBOR_DEFAULTS.skewSeconds;
  const layerTwo = settings.cbor?.layerTwo;
  const recognition = typeof settings.recognition === "object" ? settings.recognition : undefined;
  const signers = SignerRegistry.standard(
    { ...layerTwo, rpcUrl: layerTwo?.rpcUrl ?? recognition?.rpcUrl, fetch: settings.fetch },
    evmSignerOf(settings),
  );
  return new CborPaymentWire({
    signers,
    facilitator,
    ledger: deps.ledger,
    observer: settings.observer ?? {},
    now: deps.now,
    skewSeconds,
    delegation: delegation && { ...delegation, skewSeconds },
  });
}

/**
 * The EvmSigner's EIP-712 chain id, the paywall's `network` when it is an EVM one (`eip155:<id>`), and that
 * network's `rpcUrls` entry, through which EIP-1271 contract wallets are asked.
 */
function evmSignerOf(settings: ResolvedX402Options): EvmSignerOptions | undefined {
  const { network } = settings;
  if (network === undefined) return undefined;
  const match = /^eip155:([1-9][0-9]{0,15})$/.exec(network);
  const chainId = match === null ? NaN : Number(match[1]);
  if (!Number.isSafeInteger(chainId)) return undefined;
  return { chainId, rpcUrl: settings.rpcUrls[network], fetch: settings.fetch };
}

function buildLedger(settings: ResolvedX402Options, now: () => number): PaymentLedger {
  const { ledger } = settings;
  if (isPaymentLedger(ledger)) return ledger;
  if (ledger?.type === "redis") {
    const observer = settings.observer;
    return new RedisPaymentLedger({
      ...ledger,
      wait: ledgerWaitOf(ledger),
      onWait: observer?.ledgerWait && ((operation, ms, ok) => observer.ledgerWait?.(operation, ms, ok)),
    });
  }
  return new MemoryPaymentLedger({ now });
}
