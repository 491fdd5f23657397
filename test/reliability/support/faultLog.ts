import { expect } from "vitest";
import { writeFigures } from "../../../reliability/support/figures.js";
import type { GatewayProcess } from "../../../reliability/support/spawnGateway.js";

/** What a client got: status 0 and code `connection_closed` when the connection was cut. */
export interface Answer {
  status: number;
  code: string | undefined;
  body: string;
  retryAfter: string | null;
  paymentResponse: boolean;
}

/** One request as a client would send it; never throws. */
export async function ask(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const response = await fetch(url, { headers });
    const body = await response.text();
    let code: string | undefined;
    try {
      code = response.ok ? undefined : (JSON.parse(body) as { error?: string }).error;
    } catch {
      code = undefined;
    }
    return {
      status: response.status,
      code,
      body,
      retryAfter: response.headers.get("retry-after"),
      paymentResponse: response.headers.has("payment-response"),
    };
  } catch {
    return { status: 0, code: "connection_closed", body: "", retryAfter: null, paymentResponse: false };
  }
}

export const paid = (header: string) => ({ "payment-signature": header });

/** One fault tried: what the catalogue promises, what came back, and what the chain did. */
export interface FaultCase {
  fault: string;
  promised: string;
  answered: string;
  transfers: number;
  /** A 2xx that costs nothing by design (a recognized payer). */
  free: boolean;
  /** True when the money moved exactly once for one delivered priced 2xx, or not at all otherwise. */
  consistent: boolean;
}

/** Collects a suite's fault cases and writes them as `faults-<group>.json` for the report. */
export class FaultLog {
  readonly cases: FaultCase[] = [];
  constructor(private readonly group: string) {}

  add(
    fault: string,
    promised: string,
    answer: Answer,
    transfers: number,
    options: { free?: boolean } = {},
  ): void {
    const free = options.free ?? false;
    const delivered = answer.status >= 200 && answer.status < 300 && !free ? 1 : 0;
    this.cases.push({
      fault,
      promised,
      answered: `${answer.status} ${answer.code ?? ""}`.trim(),
      transfers,
      free,
      consistent: transfers === delivered,
    });
  }

  write(extra: Record<string, unknown> = {}): void {
    writeFigures(`faults-${this.group}`, {
      group: this.group,
      cases: this.cases,
      tried: this.cases.length,
      survived: this.cases.filter((c) => c.consistent).length,
      ...extra,
    });
  }
}

/** The process is still running and answers its health check. */
export async function expectAlive(gateway: GatewayProcess): Promise<void> {
  expect(gateway.child.exitCode, gateway.output().stderr).toBeNull();
  expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
}

/** The promised error: status, code, and nothing of the upstream's body. */
export function expectRefused(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.code }).toEqual({ status, code });
  expect(answer.paymentResponse).toBe(false);
  expect(answer.body).not.toContain('"path"');
}
