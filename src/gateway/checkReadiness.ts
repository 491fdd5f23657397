import type { GatewayConfig } from "../config/gatewayConfigSchema.js";

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  url: string;
  status?: number;
  error?: string;
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
    return { name, ok, url, status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { name, ok: false, url, error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

/**
 * Ready = the facilitator's `/supported` answers 2xx and every upstream answers (2xx on its `healthPath`
 * when it has one; any HTTP answer otherwise).
 */
export async function checkReadiness(
  config: GatewayConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<Readiness> {
  const facilitatorUrl = `${config.facilitator.url.replace(/\/+$/, "")}/supported`;
  const checks = await Promise.all([
    probe("facilitator", facilitatorUrl, {
      fetch: fetchImpl,
      timeoutMs: config.facilitator.supportedTimeoutMs,
      headers: config.facilitator.headers,
      needs2xx: true,
    }),
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
  ]);
  return { ready: checks.every((check) => check.ok), checks };
}
