export {
  createStakingBackend,
  STAKING_API_VERSION,
  type StakingBackend,
  type StakingBackendOptions,
} from "./createStakingBackend.js";
export { listenStakingBackend, type ListeningStakingBackend } from "./listenStakingBackend.js";
export { stakingRoutes, type StakingRoute } from "./stakingRoutes.js";
export { StakingService } from "./StakingService.js";
export { stakingConfigSchema, type StakingConfig, type StakingConfigInput } from "./stakingConfigSchema.js";
export type { ChainAdapter } from "./ChainAdapter.js";
export { LocalAdapter } from "./local/LocalAdapter.js";
export { StarknetAdapter } from "./starknet/StarknetAdapter.js";
export * from "./errors.js";
