import { LRUCache } from "lru-cache";
import type { Logger } from "../common/Logger.js";
import { silentLogger } from "../common/Logger.js";
import type { Recognizer } from "./Recognizer.js";
import { RecognitionError } from "./RecognitionError.js";
import { RECOGNITION_DEFAULTS } from "./recognitionDefaults.js";
import { revocationKey, type RevocationListener, type RevokedPayers } from "./RevokedPayers.js";

/**
 * Where an answer came from. `stale`: a past `0x1` served while the RPC fails; `error`: none, so not
 * recognized; `revoked`: the payer's recognition was revoked (a refund), whatever the chain says.
 */
export type RecognitionSource = "cache" | "rpc" | "stale" | "error" | "revoked";

export interface RecognitionCheck {
  recognized: boolean;
  source: RecognitionSource;
  /** Set when the RPC (or the revocation check) failed (source `stale` or `error`). */
  error?: RecognitionError;
}

/** Counters since start; the proxy exports them as metrics. */
export interface RecognitionStats {
  /** Answered from a fresh entry. */
  hits: number;
  /** No fresh entry: the answer had to come from the RPC (or a call already in flight). */
  misses: number;
  /** Misses that joined a call already in flight for the same address. */
  coalesced: number;
  /** `starknet_call`s made. */
  rpcCalls: number;
  /** RPC calls that failed. */
  errors: number;
  /** Failed calls answered with a stale `0x1`. */
  staleServed: number;
  /** Latency of the RPC calls, in ms. */
  rpcLatencyMs: { count: number; sum: number; max: number };
  /** Addresses currently cached. */
  entries: number;
  /** Answers turned to "not recognized" because the payer is revoked. */
  revoked: number;
}

/** Receives what the cache measures as it happens; every method optional, none may throw. */
export interface RecognitionObserver {
  lookup?(outcome: "hit" | "miss" | "coalesced"): void;
  rpcCall?(ms: number, outcome: "recognized" | "not_recognized" | "error", errorKind?: string): void;
  staleServed?(): void;
}

export interface RecognitionCacheOptions {
  /** Where answers come from (a StarknetRecognizer); may throw. */
  source: Recognizer;
  /** How long a `0x1` answer is trusted, in ms. */
  positiveTtlMs?: number;
  /** How long a `0x0` answer is trusted, in ms. */
  negativeTtlMs?: number;
  /** How long past its TTL a `0x1` may be served while the RPC fails, in ms. */
  staleIfErrorMs?: number;
  /** Most addresses kept (least recently used go first). */
  maxEntries?: number;
  /** Clock, epoch ms. */
  now?: () => number;
  logger?: Logger;
  observer?: RecognitionObserver;
  /** Revoked payers: dropped from this cache when revoked, and never recognized while denied. */
  revokedPayers?: RevokedPayers;
}

interface Entry {
  recognized: boolean;
  /** Until when the answer is trusted without asking again. */
  freshUntil: number;
}

/**
 * Caches `est_ouverte` answers per address (docs/recognition.md, "When the chain cannot be asked: fail
 * closed"). `0x1` is kept `positiveTtlMs`, `0x0` `negativeTtlMs`; concurrent misses for one address share one
 * RPC call; when the RPC fails, a `0x1` no older than its TTL + `staleIfErrorMs` is served, and anything else
 * is "not recognized". Errors are never cached.
 */
export class RecognitionCache implements Recognizer, RevocationListener {
  private readonly source: Recognizer;
  private readonly positiveTtlMs: number;
  private readonly negativeTtlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly observer: RecognitionObserver | undefined;
  private readonly revokedPayers: RevokedPayers | undefined;
  private readonly entries: LRUCache<string, Entry>;
  private readonly inFlight = new Map<string, Promise<RecognitionCheck>>();
  private readonly counters = {
    hits: 0,
    misses: 0,
    coalesced: 0,
    rpcCalls: 0,
    errors: 0,
    staleServed: 0,
    revoked: 0,
    latency: { count: 0, sum: 0, max: 0 },
  };

  constructor(options: RecognitionCacheOptions) {
    this.source = options.source;
    this.positiveTtlMs = options.positiveTtlMs ?? RECOGNITION_DEFAULTS.positiveTtlMs;
    this.negativeTtlMs = options.negativeTtlMs ?? RECOGNITION_DEFAULTS.negativeTtlMs;
    this.staleIfErrorMs = options.staleIfErrorMs ?? RECOGNITION_DEFAULTS.staleIfErrorMs;
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
    this.observer = options.observer;
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries ?? RECOGNITION_DEFAULTS.maxEntries,
      // The LRU drops an entry once it can serve no purpose (fresh, or stale-if-error for a 0x1).
      ttl: Math.max(1, this.positiveTtlMs + this.staleIfErrorMs),
      perf: { now: this.now },
      ttlResolution: 0,
      ttlAutopurge: false,
    });
    this.revokedPayers = options.revokedPayers;
    this.revokedPayers?.serve(this);
  }

  async isRecognized(address: string): Promise<boolean> {
    return (await this.check(address)).recognized;
  }

  /**
   * The answer for `address` (any case), with where it came from. Never throws for an RPC failure.
   * A revoked payer is not recognized; a `0x1` is confirmed against the revocations, and when they
   * cannot be read (Redis down) it is not recognized either (fail closed).
   */
  async check(address: string): Promise<RecognitionCheck> {
    const key = revocationKey(address);
    const revocations = this.revokedPayers;
    if (revocations?.deniedHere(key)) return this.denied(key);
    const answer = await this.lookup(key, address);
    if (!answer.recognized || revocations === undefined) return answer;
    try {
      if (await revocations.isRevoked(key)) return this.denied(key);
    } catch (cause) {
      const error = new RecognitionError("revocations_unavailable", "the revocations could not be read", {
        cause,
      });
      this.logger.warn(
        { event: "recognition_revocations_unavailable", address: key, err: (cause as Error).message },
        "revocations could not be read; not recognized (fail closed)",
      );
      return { recognized: false, source: "error", error };
    }
    return answer;
  }

  private denied(key: string): RecognitionCheck {
    this.counters.revoked += 1;
    this.logger.info({ event: "recognition_revoked", address: key }, "payer revoked; not recognized");
    return { recognized: false, source: "revoked" };
  }

  private lookup(key: string, address: string): Promise<RecognitionCheck> | RecognitionCheck {
    const entry = this.entries.get(key);
    if (entry !== undefined && this.now() < entry.freshUntil) {
      this.counters.hits += 1;
      this.observer?.lookup?.("hit");
      return { recognized: entry.recognized, source: "cache" };
    }
    this.counters.misses += 1;
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      this.counters.coalesced += 1;
      this.observer?.lookup?.("coalesced");
      return pending;
    }
    this.observer?.lookup?.("miss");
    const call = this.ask(key, address).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    return call;
  }

  /** Forgets what is known about `address` (e.g. after a refund). */
  forget(address: string): void {
    this.entries.delete(revocationKey(address));
  }

  /** Forgets every answer (revocations may have been missed). */
  clear(): void {
    this.entries.clear();
  }

  stats(): RecognitionStats {
    const { latency, ...counts } = this.counters;
    return { ...counts, rpcLatencyMs: { ...latency }, entries: this.entries.size };
  }

  private async ask(key: string, address: string): Promise<RecognitionCheck> {
    this.counters.rpcCalls += 1;
    const started = performance.now();
    try {
      const recognized = await this.source.isRecognized(address);
      const ms = this.recordLatency(started);
      const ttl = recognized ? this.positiveTtlMs : this.negativeTtlMs;
      const now = this.now();
      // Revoked while the call was in flight: the answer must not outlive the forget that came first.
      if (ttl > 0 && !(recognized && this.revokedPayers?.deniedHere(key))) {
        this.entries.set(
          key,
          { recognized, freshUntil: now + ttl },
          { ttl: recognized ? ttl + this.staleIfErrorMs : ttl },
        );
      } else {
        this.entries.delete(key);
      }
      this.observer?.rpcCall?.(ms, recognized ? "recognized" : "not_recognized");
      return { recognized, source: "rpc" };
    } catch (cause) {
      const ms = this.recordLatency(started);
      const error =
        cause instanceof RecognitionError
          ? cause
          : new RecognitionError("transport", "the recognition check failed", { cause });
      this.counters.errors += 1;
      this.observer?.rpcCall?.(ms, "error", error.kind);
      const entry = this.entries.get(key, { allowStale: false });
      if (entry?.recognized === true && this.now() < entry.freshUntil + this.staleIfErrorMs) {
        this.counters.staleServed += 1;
        this.observer?.staleServed?.();
        this.logger.warn(
          { event: "recognition_stale", address: key, kind: error.kind, err: error.message },
          "recognition RPC failed; serving a stale 0x1",
        );
        return { recognized: true, source: "stale", error };
      }
      this.logger.warn(
        {
          event: "recognition_error",
          address: key,
          kind: error.kind,
          err: error.message,
          details: error.details,
        },
        "recognition RPC failed; not recognized (fail closed)",
      );
      return { recognized: false, source: "error", error };
    }
  }

  private recordLatency(started: number): number {
    const ms = performance.now() - started;
    const latency = this.counters.latency;
    latency.count += 1;
    latency.sum += ms;
    latency.max = Math.max(latency.max, ms);
    return ms;
  }
}
