import { GatewayError } from "../../protocol/errors.js";

/** How long a failed start-up check is trusted before a priced request tries it again, in ms. */
export const STARTUP_RETRY_MS = 10_000;

/**
 * What must hold before the paywall takes a priced request (an upstream's OpenAPI document loaded;
 * with `facilitatorSupport: "require"`, `/supported` listing every option). `ready()` is for whoever can
 * refuse to start (the gateway, Fastify's `onReady`); `gate()` is for middleware that cannot: a priced
 * request waits for the check in progress, and after a failure gets `503 paywall_unavailable` until a
 * new attempt (at most one per {@link STARTUP_RETRY_MS}) passes.
 */
export class StartupChecks {
  private attempt: Promise<void> | undefined;
  private passed = false;
  private failedAtMs: number | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly now: () => number,
  ) {}

  /** Whether every check has passed (then {@link gate} costs nothing). */
  get isReady(): boolean {
    return this.passed;
  }

  /** Run the checks (once at a time); rejects with what failed. */
  ready(): Promise<void> {
    if (this.passed) return Promise.resolve();
    this.attempt ??= this.run().then(
      () => {
        this.passed = true;
      },
      (error: unknown) => {
        this.attempt = undefined;
        this.failedAtMs = this.now();
        this.failure = error instanceof Error ? error : new Error(String(error));
        throw this.failure;
      },
    );
    return this.attempt;
  }

  /** For a priced request: wait for the checks, or throw `paywall_unavailable`. */
  async gate(): Promise<void> {
    if (this.passed) return;
    const failedAt = this.failedAtMs;
    if (this.attempt === undefined && failedAt !== undefined && this.now() - failedAt < STARTUP_RETRY_MS)
      throw unavailable(this.failure, STARTUP_RETRY_MS - (this.now() - failedAt));
    try {
      await this.ready();
    } catch (error) {
      throw unavailable(error as Error, STARTUP_RETRY_MS);
    }
  }
}

function unavailable(failure: Error | undefined, retryInMs: number): GatewayError {
  return new GatewayError(
    "paywall_unavailable",
    "the paywall's start-up checks have not passed; priced requests are refused until they do",
    {
      cause: failure,
      // What failed is in the logs (it may name internal addresses); the client learns which check.
      details: { check: (failure as { check?: string } | undefined)?.check ?? "startup" },
      retryAfterSeconds: Math.max(1, Math.ceil(retryInMs / 1000)),
    },
  );
}
