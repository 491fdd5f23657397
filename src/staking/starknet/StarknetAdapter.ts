import type {
  ChainAdapter,
  ChainState,
  OperationOutcome,
  OperationPlan,
  StateRequest,
} from "../ChainAdapter.js";
import type { StakingConfig } from "../stakingConfigSchema.js";
import type { TokenInfo } from "../tokens.js";

export interface StarknetAdapterOptions {
  config: NonNullable<StakingConfig["starknet"]>;
  tokens: readonly TokenInfo[];
  clock: () => number;
  fetch?: typeof fetch;
}

export class StarknetAdapter implements ChainAdapter {
  readonly kind = "starknet";
  readonly tokens: readonly TokenInfo[];
  constructor(options: StarknetAdapterOptions) {
    this.tokens = options.tokens;
  }
  async execute(_r: StateRequest, _p: (s: ChainState) => OperationPlan): Promise<OperationOutcome> {
    throw new Error("not yet");
  }
  async read(_r: StateRequest): Promise<ChainState> {
    throw new Error("not yet");
  }
  async yearlyMint(): Promise<bigint> {
    throw new Error("not yet");
  }
  async networkStake(): Promise<{ strk: bigint; btc: bigint }> {
    throw new Error("not yet");
  }
  close(): void {}
}
