import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort } from "../../src/dev/findFreePort.js";
import { until } from "./redisProcesses.js";

/** Where Debian's `haproxy` package puts the binary; `undefined` when it is not installed. */
export function haproxyBinary(): string | undefined {
  for (const candidate of ["/usr/sbin/haproxy", "/usr/bin/haproxy"]) {
    if (spawnSync(candidate, ["-v"], { stdio: "ignore" }).status === 0) return candidate;
  }
  return undefined;
}

export interface Haproxy {
  url: string;
  stop(): Promise<void>;
}

/**
 * Until every backend's `/readyz` answers 200 (its ledger and peers answer): what HAProxy's checks will see,
 * so that a gateway still starting, or one a fault left not ready, is not out of rotation when a test begins.
 */
export async function untilBackendsReady(backends: string[], timeoutMs = 30_000): Promise<void> {
  await until(
    "every gateway to be ready",
    async () =>
      (
        await Promise.all(
          backends.map((backend) =>
            fetch(`${backend}/readyz`).then(
              (answer) => answer.status === 200,
              () => false,
            ),
          ),
        )
      ).every(Boolean),
    timeoutMs,
  );
}

/**
 * HAProxy on a free loopback port, round-robin over `backends` (`http://127.0.0.1:port`), started once each
 * is ready, each checked on `/readyz` every 250 ms (down after 2 failures), in a process group of its own.
 * A check waits up to 2 s for its answer: on a loaded machine (CI runs test files side by side on 2 cores)
 * a gateway's event loop can stall past 250 ms, and HAProxy's default (the check interval as the timeout)
 * then took all three gateways out at once and answered 503 itself; a gateway that is down or not ready
 * still fails its check at once (connection refused, or `/readyz` 503).
 */
export async function startHaproxy(binary: string, backends: string[]): Promise<Haproxy> {
  await untilBackendsReady(backends);
  const dir = await mkdtemp(join(tmpdir(), "x402-haproxy-"));
  const port = await findFreePort();
  const file = join(dir, "haproxy.cfg");
  await writeFile(
    file,
    [
      "global",
      "  maxconn 1024",
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 60s",
      "  timeout server 60s",
      "  timeout check 2s",
      // A request is never sent twice (it may carry a payment); only a refused connection is retried elsewhere.
      "  retries 2",
      "  option redispatch",
      "frontend gateways",
      `  bind 127.0.0.1:${port}`,
      "  default_backend gateways",
      "backend gateways",
      "  balance roundrobin",
      "  option httpchk GET /readyz",
      "  default-server inter 250ms fall 2 rise 2",
      ...backends.map((backend, i) => `  server gw${i + 1} ${new URL(backend).host} check`),
      "",
    ].join("\n"),
  );
  const child = spawn(binary, ["-f", file, "-db"], { stdio: "ignore", detached: true });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await until("HAProxy to answer", async () => (await fetch(`${url}/healthz`)).status === 200, 15_000);
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null)
        process.kill(-(child.pid as number), "SIGKILL");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
