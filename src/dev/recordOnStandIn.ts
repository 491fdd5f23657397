import type { GatewayConfig } from "../config/gatewayConfigSchema.js";
import type { PaidEvent } from "../paywall/setup/options.js";
import { buildRouteTable } from "../pricing/buildRouteTable.js";
import { recordingTargets, recordPaidPayers } from "../paywall/flow/recordingTargets.js";
import { starknetEndpoint } from "../starknet/StarknetRpc.js";
import type { LocalStack } from "./startLocalStack.js";

/**
 * The gateway's `onPaid` hook of the local stack: each paid event that qualifies (a recognized route of
 * `config`, paid to this merchant for at least its price, by a payer with an address) is handed to the
 * stack's recorder, for that route's registry contract on the layer-2 stand-in. What npm start runs.
 */
export function recordOnStandIn(
  config: GatewayConfig,
  stack: Pick<LocalStack, "layer2" | "recorder">,
  log?: (line: string) => void,
): (event: PaidEvent) => void {
  return recordPaidPayers({
    targets: recordingTargets(
      buildRouteTable(config).routes,
      (route) => route.config.recognition ?? config.recognition,
    ),
    write: (recording) => {
      if (starknetEndpoint(recording.rpcUrl) !== stack.layer2.rpcUrl)
        throw new Error(`no recorder writes ${recording.rpcUrl} here (only the local stand-in)`);
      stack.recorder.schedule(recording);
    },
    log,
  });
}
