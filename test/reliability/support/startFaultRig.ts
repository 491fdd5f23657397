import { randomUUID } from "node:crypto";
import { startLocalStack, type LocalStack } from "../../../src/dev/startLocalStack.js";
import {
  localGatewayConfig,
  type LocalGatewayConfigOptions,
} from "../../../reliability/support/localGatewayConfig.js";
import { paymentSigner, type PaymentSigner } from "../../../reliability/support/signPayments.js";
import { spawnGateway, type GatewayProcess } from "../../../reliability/support/spawnGateway.js";
import {
  startCountingUpstream,
  type CountingUpstream,
} from "../../../reliability/support/startCountingUpstream.js";
import {
  startFacilitatorProxy,
  type FacilitatorProxy,
} from "../../../reliability/support/startFacilitatorProxy.js";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
/** `$0.001` of TestUSDC, the price of `GET /paid/*`. */
export const PRICE = 1_000n;

/** anvil + the official facilitator behind a fault proxy, a counting upstream, and one gateway process. */
export interface FaultRig {
  stack: LocalStack;
  proxy: FacilitatorProxy;
  upstream: CountingUpstream;
  gateway: GatewayProcess;
  signer: PaymentSigner;
  /** One fresh payment for `path`. */
  pay(path: string): Promise<string>;
  stop(): Promise<number | string>;
}

export async function startFaultRig(
  options: Partial<Omit<LocalGatewayConfigOptions, "stack" | "upstreamUrl" | "facilitatorUrl">> = {},
): Promise<FaultRig> {
  const [stack, upstream] = await Promise.all([startLocalStack(), startCountingUpstream()]);
  const proxy = await startFacilitatorProxy(stack.facilitatorUrl);
  const gateway = await spawnGateway(
    localGatewayConfig({
      stack,
      facilitatorUrl: proxy.url,
      upstreamUrl: upstream.url,
      redis: { url: REDIS_URL, keyPrefix: `test:reliability:${randomUUID()}:` },
      routes: { "GET /paid/*": { price: "$0.001" } },
      ...options,
    }),
  );
  const signer = paymentSigner(stack.accounts.payer.privateKey, stack.network, stack.token.address);
  return {
    stack,
    proxy,
    upstream,
    gateway,
    signer,
    pay: async (path) => (await signer.sign(`${gateway.url}${path}`, 1))[0]!,
    async stop() {
      const exit = await gateway.stop();
      await Promise.all([proxy.close(), upstream.close()]);
      await stack.stop();
      return exit;
    },
  };
}

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
