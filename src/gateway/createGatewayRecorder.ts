import { Counter, Gauge, type Registry } from "prom-client";
import type { Logger } from "pino";
import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import { buildRouteTable } from "../pricing/buildRouteTable.js";
import type { PaidEvent } from "../paywall/setup/options.js";
import { recordingTargets, recordPaidPayers } from "../paywall/flow/recordingTargets.js";
import { loadRecorderAccount } from "../recognition/recorder/loadRecorderAccount.js";
import type { RecordingQueue } from "../recognition/recorder/RecordingQueue.js";
import { RedisRecordingQueue } from "../recognition/recorder/RedisRecordingQueue.js";
import { SqliteRecordingQueue } from "../recognition/recorder/SqliteRecordingQueue.js";
import { StarknetInvoker } from "../recognition/recorder/StarknetInvoker.js";
import { StarknetPayerRecorder, type RecorderHealth } from "../recognition/recorder/StarknetPayerRecorder.js";
import { StarknetRpc, starknetEndpoint } from "../starknet/StarknetRpc.js";

/** The gateway's payer recorder: fed by its paid events, started with its listener, stopped with it. */
export interface GatewayRecorder {
  onPaid: (event: PaidEvent) => void;
  /** Loads the account's key (refusing to start without it) and starts writing. */
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): RecorderHealth;
}

/**
 * The `recorder` section at work: qualifying paid events (src/paywall/flow/recordingTargets.ts) are queued
 * for the node the recorder writes to; a recognized route that reads another node is refused here, at
 * start-up. Metrics: `x402_recorder_queue` (pending / in flight), `x402_recorder_recorded_total`,
 * `x402_recorder_failures_total{reason}`. Its files' relative paths are read from
 * the config file's folder (loadConfig).
 */
export function createGatewayRecorder(
  config: GatewayConfig,
  options: { logger: Logger; registry: Registry; env?: NodeJS.ProcessEnv },
): GatewayRecorder | undefined {
  const settings = config.recorder;
  if (settings === undefined) return undefined;
  const rpcUrl = settings.rpcUrl ?? config.recognition?.rpcUrl;
  if (rpcUrl === undefined)
    throw new Error("recorder.rpcUrl is needed when there is no top-level recognition");
  const targets = recordingTargets(
    buildRouteTable(config).routes,
    (route) => route.config.recognition ?? config.recognition,
  );
  const elsewhere = targets.find((target) => starknetEndpoint(target.rpcUrl) !== starknetEndpoint(rpcUrl));
  if (elsewhere !== undefined) {
    throw new Error(
      `recorder writes to ${rpcUrl}, but route ${elsewhere.route} recognizes payers on ${elsewhere.rpcUrl}: one node for both`,
    );
  }
  let queue: RecordingQueue;
  if (settings.queue === "ledger") {
    if (config.ledger.type !== "redis")
      throw new Error('recorder.queue "ledger" needs a Redis ledger (ledger.type: redis)');
    const { type: _type, keyPrefix, wait: _wait, ...topology } = config.ledger;
    queue = new RedisRecordingQueue({ ...topology, keyPrefix: `${keyPrefix ?? "x402:payment:"}recorder:` });
  } else {
    queue = new SqliteRecordingQueue(settings.queue.file);
  }
  const log = options.logger.child({ component: "recorder" });
  const registry = options.registry;
  const recorded = new Counter({
    name: "x402_recorder_recorded_total",
    help: "Payers recorded on chain.",
    registers: [registry],
  });
  const failures = new Counter({
    name: "x402_recorder_failures_total",
    help: "Recorder cycles that failed, by reason.",
    labelNames: ["reason"],
    registers: [registry],
  });
  new Gauge({
    name: "x402_recorder_queue",
    help: "Recordings waiting (pending) or in the transaction in flight (in_flight).",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      const stats = await queue.stats().catch(() => undefined);
      if (stats === undefined) return;
      this.set({ state: "pending" }, stats.pending);
      this.set({ state: "in_flight" }, stats.inFlight);
    },
  });

  let recorder: StarknetPayerRecorder | undefined;
  const onPaid = recordPaidPayers({
    targets,
    write: (recording) => {
      const payer = { contract: recording.contract, payer: recording.payer };
      const queued = recorder !== undefined ? recorder.record(payer) : queue.enqueue(payer, Date.now());
      void queued.catch((error: unknown) =>
        log.error({ err: error, payer: recording.payer }, "recording not queued"),
      );
    },
    log: (line) => log.warn(line),
  });
  return {
    onPaid,
    async start() {
      const account = await loadRecorderAccount(settings, options.env);
      const rpc = new StarknetRpc({ rpcUrl, timeoutMs: settings.timeoutMs, setting: "recorder.rpcUrl" });
      recorder = new StarknetPayerRecorder({
        queue,
        invoker: new StarknetInvoker(rpc, account, settings.resourceBounds),
        entryPoint: settings.entryPoint,
        batchSize: settings.batchSize,
        intervalMs: settings.intervalMs,
        backoffMs: settings.backoffMs,
        maxBackoffMs: settings.maxBackoffMs,
        unhealthyAfterMs: settings.unhealthyAfterMs,
        onEvent: (event) => {
          if (event.kind === "recorded") recorded.inc(event.count);
          else if (event.kind === "failed") {
            failures.inc({ reason: event.reason });
            log.warn({ reason: event.reason, error: event.message }, "recorder cycle failed");
          } else if (event.kind === "sent")
            log.info(
              { transaction: event.hash, nonce: event.nonce, count: event.count, resent: event.resent },
              "recordings sent",
            );
        },
      });
      recorder.start();
      log.info(
        { account: account.address, rpcUrl, entryPoint: settings.entryPoint },
        "payer recorder started",
      );
    },
    async stop() {
      await recorder?.stop();
      await queue.close();
    },
    health: () => recorder?.health() ?? { ok: false, reason: "not_started" },
  };
}
