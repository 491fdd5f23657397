import cluster from "node:cluster";
import { randomUUID } from "node:crypto";
import { AggregatorRegistry, type PrometheusContentType, type Registry } from "prom-client";

/** A worker asks the primary for every worker's metrics with this message; the answer carries the same id. */
const METRICS_REQUEST = "x402-gateway:metrics";
const METRICS_ANSWER = "x402-gateway:metrics-answer";

/** How long a worker waits for the primary's aggregate before answering with an error. */
const ASK_TIMEOUT_MS = 10_000;

interface MetricsMessage {
  type: string;
  id: string;
  text?: string;
  error?: string;
}

const isMetricsMessage = (message: unknown, type: string): message is MetricsMessage =>
  typeof message === "object" && message !== null && (message as MetricsMessage).type === type;

/**
 * In the cluster's primary: answer a worker's request for the metrics with prom-client's aggregate of all
 * workers (counters and histograms summed, per-process gauges as each metric's aggregator says); the
 * aggregator is returned for the primary's own metrics listener.
 */
export function aggregateWorkerMetrics(): AggregatorRegistry<PrometheusContentType> {
  const aggregator = new AggregatorRegistry<PrometheusContentType>();
  cluster.on("message", (worker, message: unknown) => {
    if (!isMetricsMessage(message, METRICS_REQUEST)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_ANSWER, id: message.id, text }),
      (error: unknown) =>
        worker.send({ type: METRICS_ANSWER, id: message.id, error: (error as Error).message }),
    );
  });
  return aggregator;
}

/**
 * In a worker: give prom-client's cluster protocol this worker's `registry`, and return what the metrics
 * path serves: the primary's aggregate of every worker, so a scrape counts the whole gateway, not one worker.
 */
export function clusterMetricsText(registry: Registry): () => Promise<string> {
  // The constructor registers the worker's side of prom-client's protocol (answering the primary).
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        process.off("message", onMessage);
        reject(new Error("the primary did not answer the metrics request"));
      }, ASK_TIMEOUT_MS);
      const onMessage = (message: unknown) => {
        if (!isMetricsMessage(message, METRICS_ANSWER) || message.id !== id) return;
        clearTimeout(timer);
        process.off("message", onMessage);
        if (message.error !== undefined) reject(new Error(message.error));
        else resolve(message.text ?? "");
      };
      process.on("message", onMessage);
      process.send?.({ type: METRICS_REQUEST, id });
    });
}
