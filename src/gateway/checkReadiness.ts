import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import type { LedgerHealth } from "../ledger/PaymentLedger.js";
import { ledgerCheck } from "./ledgerCheck.js";
import { recognitionChecks } from "./recognitionChecks.js";

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  url: string;
  status?: number;
  error?: string;
  /**
   * Why a failed check failed, coarse enough to show anyone: `unreachable`, `timeout`, `tls`, `status_503`,
   * `error`, or a recognition failure's kind (`contract_not_found`…).
   */
  reason?: string;
}

/** Connection-level failures that mean "nothing answered at that address". */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "UND_ERR_SOCKET",
]);

/** A fetch failure as a reason word: never the URL or the error's text, which may carry a host or a token. */
function failureReason(error: unknown): string {
  const name = (error as Error).name;
  const code = (error as { cause?: { code?: string } }).cause?.code ?? "";
  if (
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_CONNECT_TIMEOUT" ||
    code === "ETIMEDOUT"
  )
    return "timeout";
  if (UNREACHABLE.has(code)) return "unreachable";
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return "tls";
  return "error";
}

export interface Readiness {
  ready: boolean;
  checks: ReadinessCheck[];
}

async function probe(
  name: string,
  url: string,
  options: { fetch: typeof fetch; timeoutMs: number; headers?: Record<string, string>; needs2xx: boolean },
): Promise<ReadinessCheck> {
  try {
    const response = await options.fetch(url, {
      headers: options.headers,
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "manual",
    });
    await response.body?.cancel();
    const ok = options.needs2xx ? response.ok : true;
    return { name, ok, url, status: response.status, ...(ok ? {} : { reason: `status_${response.status}` }) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      name,
      ok: false,
      url,
      error: cause?.code ?? cause?.message ?? (error as Error).message,
      reason: failureReason(error),
    };
  }
}

/**
 * Ready = the facilitator's `/supported` answers 2xx (of several, one), every upstream answers (2xx on its `healthPath`
 * when it has one; any HTTP answer otherwise), a Redis ledger answers through the paywall's own
 * connection (`ledgerHealth`), and each configured recognition node answers `est_ouverte`.
 */
export async function checkReadiness(
  config: GatewayConfig,
  fetchImpl: typeof fetch = fetch,
  ledgerHealth?: (timeoutMs: number) => Promise<LedgerHealth | undefined>,
): Promise<Readiness> {
  const facilitators = Array.isArray(config.facilitator) ? config.facilitator : [config.facilitator];
  const facilitatorChecks = Promise.all(
    facilitators.map((facilitator) =>
      probe(
        facilitators.length === 1 ? "facilitator" : `facilitator ${facilitator.url}`,
        `${facilitator.url.replace(/\/+$/, "")}/supported`,
        {
          fetch: fetchImpl,
          timeoutMs: facilitator.supportedTimeoutMs,
          headers: facilitator.headers,
          needs2xx: true,
        },
      ),
    ),
  );
  const checks = await Promise.all([
    facilitatorChecks,
    ...config.upstreams.map((upstream) =>
      probe(
        `upstream ${upstream.prefix}`,
        `${upstream.url.replace(/\/+$/, "")}${upstream.healthPath ?? "/"}`,
        {
          fetch: fetchImpl,
          timeoutMs: upstream.connectTimeoutMs,
          needs2xx: upstream.healthPath !== undefined,
        },
      ),
    ),
    ledgerCheck(config, ledgerHealth),
    ...recognitionChecks(config, fetchImpl),
  ]).then((found) => found.flat().filter((check): check is ReadinessCheck => check !== undefined));
  // Of several facilitators, one answering is enough: payments fail over to it.
  const others = checks.filter((check) => !check.name.startsWith("facilitator"));
  const facilitatorsOk = checks.some((check) => check.name.startsWith("facilitator") && check.ok);
  return { ready: facilitatorsOk && others.every((check) => check.ok), checks };
}
