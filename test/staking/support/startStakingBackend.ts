import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import {
  createStakingBackend,
  type StakingBackend,
  type StakingBackendOptions,
} from "../../../src/staking/index.js";

/** A clock the test moves by hand (milliseconds since the Unix epoch). */
export class TestClock {
  constructor(public nowMs = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.nowMs;
  advanceSeconds(seconds: number): void {
    this.nowMs += seconds * 1000;
  }
}

export interface RunningBackend {
  url: string;
  backend: StakingBackend;
  clock: TestClock;
  close(): Promise<void>;
}

/** The staking backend on a real HTTP server on 127.0.0.1, port 0, with an in-memory local chain by default. */
export async function startStakingBackend(options: StakingBackendOptions = {}): Promise<RunningBackend> {
  const clock = new TestClock();
  const config = options.config ?? {};
  const backend = createStakingBackend({
    clock: clock.now,
    ...options,
    config: { ...config, local: { dataFile: ":memory:", ...config.local } },
  });
  const server: Server = await new Promise((resolve) => {
    const s = backend.app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    backend,
    clock,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          backend.close();
          resolve();
        });
      }),
  };
}
