import {
  listenStakingBackend,
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
  const running = await listenStakingBackend({
    clock: clock.now,
    ...options,
    config: { ...config, local: { dataFile: ":memory:", ...config.local } },
    host: "127.0.0.1",
    port: 0,
  });
  return {
    url: running.url,
    backend: running.backend,
    clock,
    close: () => {
      running.server.closeAllConnections();
      return running.close();
    },
  };
}
