/** The standalone gateway as a library: `import { loadConfig, createGateway } from "x402-gateway/gateway"`. */
export { loadConfig, parseConfig } from "./config/loadConfig.js";
export { ConfigError } from "./config/ConfigError.js";
export { gatewayConfigSchema, type GatewayConfig } from "./config/gatewayConfigSchema.js";
export {
  createGateway,
  type Gateway,
  type GatewayDeps,
  type GatewayPaywall,
  type RunningGateway,
} from "./gateway/createGateway.js";
export { listenGateway, type ListenGatewayOptions } from "./gateway/listenGateway.js";
