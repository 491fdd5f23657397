import type { Logger } from "../../common/Logger.js";
import { callRouteFunction } from "../../pricing/callRouteFunction.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { SettleResponse } from "../../protocol/schemas.js";
import type { RequestFacts } from "../request/RequestFacts.js";
import {
  hookLists,
  type HookLists,
  type HookName,
  type HookRequest,
  type HookSettleResponse,
  type HookVerifyResponse,
  type PaymentHooks,
  type SettleContext,
  type VerifyContext,
} from "./PaymentHooks.js";

/** What `onProtectedRequest` decided: let in without payment, refuse, or `undefined` to go on. */
type ProtectedDecision = { kind: "grant" } | { kind: "deny"; reason: string } | undefined;

/** A verdict after the verify hooks: the official `ResourceVerifyResponse`, maybe asking to skip the handler. */
export type HookedVerdict = HookVerifyResponse & {
  skipHandler?: { contentType?: string | undefined; body?: unknown } | undefined;
};

/** What the settle hooks decided before `/settle` is asked. */
export type BeforeSettleDecision =
  | { kind: "settle" }
  | { kind: "abort"; reason: string; message?: string | undefined }
  | { kind: "skip"; result: HookSettleResponse };

/**
 * Runs the user's lifecycle hooks with the official semantics (`@x402/core` 2.27's `x402ResourceServer`):
 * in order, the first decision wins; a hook that throws or does not answer within the route-function
 * timeout is logged (`hook_failed`) and skipped. What a hook threw never reaches the client.
 */
export class HookRunner {
  private readonly lists: HookLists;

  constructor(
    hooks: PaymentHooks | undefined,
    private readonly logger: Logger,
  ) {
    this.lists = hookLists(hooks);
  }

  request(req: RequestFacts, route: PricedRoute, path: string, paymentHeader?: string): HookRequest {
    return { method: req.method, path, routePattern: route.key, headers: req.headers, paymentHeader };
  }

  /**
   * `onProtectedRequest`: `grant` (served without payment), `deny` (403), or `undefined` to go on. Fails
   * closed: a hook that throws or hangs is `500 hook_failed`, since neither letting in nor offering is safe.
   * Without such a hook, `undefined` at once: no hook request is built and nothing is awaited.
   */
  protectedRequest(
    req: RequestFacts,
    route: PricedRoute,
    path: string,
    paymentHeader: string | undefined,
  ): Promise<ProtectedDecision> | undefined {
    if (this.lists.onProtectedRequest.length === 0) return undefined;
    return this.decideProtected(this.request(req, route, path, paymentHeader), route);
  }

  private async decideProtected(request: HookRequest, route: PricedRoute): Promise<ProtectedDecision> {
    for (const hook of this.lists.onProtectedRequest) {
      let result;
      try {
        result = await callRouteFunction(hook, [request, route.config], "onProtectedRequest", {
          hook: "onProtectedRequest",
        });
      } catch (error) {
        throw new GatewayError("hook_failed", "a payment hook failed; nothing was offered or served", {
          details: { hook: "onProtectedRequest" },
          cause: (error as GatewayError).cause ?? error,
        });
      }
      if (result && "grantAccess" in result && result.grantAccess) return { kind: "grant" };
      if (result && "abort" in result && result.abort) return { kind: "deny", reason: String(result.reason) };
    }
    return undefined;
  }

  /** `onBeforeVerify`, then `ask` (the facilitator), `onVerifyFailure` if it threw, then `onAfterVerify`. */
  async verify(context: VerifyContext, ask: () => Promise<HookVerifyResponse>): Promise<HookedVerdict> {
    for (const hook of this.lists.onBeforeVerify) {
      const result = await this.call("onBeforeVerify", hook, context);
      if (result && "abort" in result && result.abort) return aborted(result);
      if (result && "skip" in result && result.skip) return this.afterVerify(context, result.result);
    }
    let verdict: HookVerifyResponse;
    try {
      verdict = await ask();
    } catch (error) {
      const failure = { ...context, error: error as Error };
      for (const hook of this.lists.onVerifyFailure) {
        const result = await this.call("onVerifyFailure", hook, failure);
        if (result && "recovered" in result && result.recovered)
          return this.afterVerify(context, result.result);
      }
      throw error;
    }
    return this.afterVerify(context, verdict);
  }

  private async afterVerify(context: VerifyContext, verdict: HookVerifyResponse): Promise<HookedVerdict> {
    let skipHandler: HookedVerdict["skipHandler"];
    const withResult = { ...context, result: verdict };
    for (const hook of this.lists.onAfterVerify) {
      const result = await this.call("onAfterVerify", hook, withResult);
      if (result && "abort" in result && result.abort) return aborted(result);
      if (result && "skipHandler" in result && result.skipHandler) skipHandler = result.response ?? {};
    }
    return skipHandler === undefined ? verdict : { ...verdict, skipHandler };
  }

  async beforeSettle(context: SettleContext): Promise<BeforeSettleDecision> {
    for (const hook of this.lists.onBeforeSettle) {
      const result = await this.call("onBeforeSettle", hook, context);
      if (result && "abort" in result && result.abort)
        return { kind: "abort", reason: String(result.reason), message: result.message };
      if (result && "skip" in result && result.skip) return { kind: "skip", result: result.result };
    }
    return { kind: "settle" };
  }

  /** `onSettleFailure`: the first `recovered` result, if any. */
  async settleFailure(context: SettleContext, error: Error): Promise<HookSettleResponse | undefined> {
    const failure = { ...context, error };
    for (const hook of this.lists.onSettleFailure) {
      const result = await this.call("onSettleFailure", hook, failure);
      if (result && "recovered" in result && result.recovered) return result.result;
    }
    return undefined;
  }

  async afterSettle(context: SettleContext, result: SettleResponse): Promise<void> {
    for (const hook of this.lists.onAfterSettle)
      await this.call("onAfterSettle", hook, { ...context, result });
  }

  /** One hook: its result, or `undefined` when it threw or hung (logged). */
  private async call<A, T>(name: HookName, hook: (arg: A) => T | Promise<T>, arg: A): Promise<T | undefined> {
    try {
      return await callRouteFunction(hook, [arg], name, { hook: name });
    } catch (error) {
      this.logger.error(
        { code: "hook_failed", hook: name, err: (error as GatewayError).cause ?? error },
        `the ${name} hook failed; skipped, as the official server skips it`,
      );
      return undefined;
    }
  }
}

function aborted(result: { reason: string; message?: string | undefined }): HookVerifyResponse {
  return { isValid: false, invalidReason: String(result.reason), invalidMessage: result.message };
}
