import { GatewayError } from "../protocol/errors.js";
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from "../protocol/schemas.js";
import type { Facilitator } from "./Facilitator.js";

/** One facilitator of several, and the payments it serves (every one when neither list is given). */
export interface FacilitatorRoute {
  facilitator: Facilitator;
  /** CAIP-2 networks, or a namespace's every network as `eip155:*`. */
  networks?: readonly string[] | undefined;
  schemes?: readonly string[] | undefined;
  /** How it is named in errors and logs (its URL). */
  name: string;
}

/** Whether `network` is one of `patterns` (`eip155:8453`, or `eip155:*` for the namespace). */
export function networkMatches(patterns: readonly string[] | undefined, network: string): boolean {
  if (patterns === undefined) return true;
  return patterns.some((pattern) =>
    pattern.endsWith(":*") ? network.startsWith(pattern.slice(0, -1)) : pattern === network,
  );
}

/** Whether the facilitator of `route` is routed payments of this scheme on this network. */
export function servesOption(
  route: Pick<FacilitatorRoute, "networks" | "schemes">,
  option: { scheme: string; network: string },
): boolean {
  return (
    (route.schemes === undefined || route.schemes.includes(option.scheme)) &&
    networkMatches(route.networks, option.network)
  );
}

/** A call that never reached the facilitator: nothing was processed, so the next one may be asked. */
function notSent(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    error.code === "facilitator_unavailable" &&
    error.details.reason === "unreachable"
  );
}

/** A verify or supported read that the facilitator could not answer (a refusal or a verdict is an answer). */
function unanswered(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    (error.code === "facilitator_unavailable" ||
      (error.code === "facilitator_error" && error.details.reason === "malformed"))
  );
}

/**
 * Several facilitators, each for some networks and schemes, tried in their order. `/verify` and
 * `/supported` go on to the next facilitator serving the payment when one cannot answer; `/settle` only
 * when the call never reached it (nothing sent), since a settle that may have been processed has an
 * unknown outcome that must be found out, never settled a second time elsewhere. A payment is settled
 * first where it was verified.
 */
export class RoutedFacilitator implements Facilitator {
  constructor(private readonly routes: readonly FacilitatorRoute[]) {
    if (routes.length === 0) throw new Error("RoutedFacilitator: no facilitator");
  }

  /** Which facilitator verified a payment: its settle goes there first (held weakly, by the payload object). */
  private readonly verifiedBy = new WeakMap<PaymentPayload, FacilitatorRoute>();

  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    return this.inTurn(requirements, undefined, unanswered, async (route) => {
      const answer = await route.facilitator.verify(payload, requirements);
      this.verifiedBy.set(payload, route);
      return answer;
    });
  }

  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
    return this.inTurn(requirements, this.verifiedBy.get(payload), notSent, (route) =>
      route.facilitator.settle(payload, requirements),
    );
  }

  /** Every facilitator's kinds, each limited to the networks and schemes it is routed; those that cannot answer are left out. */
  async supported(): Promise<SupportedResponse> {
    const answers = await Promise.allSettled(this.routes.map((route) => route.facilitator.supported()));
    const kinds: SupportedResponse["kinds"] = [];
    const extensions = new Set<string>();
    let firstFailure: unknown;
    answers.forEach((answer, index) => {
      if (answer.status === "rejected") {
        firstFailure ??= answer.reason;
        return;
      }
      const route = this.routes[index] as FacilitatorRoute;
      for (const kind of answer.value.kinds) if (servesOption(route, kind)) kinds.push(kind);
      for (const extension of answer.value.extensions ?? []) extensions.add(extension);
    });
    if (answers.every((answer) => answer.status === "rejected")) throw firstFailure;
    return { kinds, extensions: [...extensions] };
  }

  private async inTurn<T>(
    requirements: PaymentRequirements,
    first: FacilitatorRoute | undefined,
    mayTryNext: (error: unknown) => boolean,
    call: (route: FacilitatorRoute) => Promise<T>,
  ): Promise<T> {
    const serving = this.routes.filter((route) => servesOption(route, requirements));
    const candidates = first ? [first, ...serving.filter((route) => route !== first)] : serving;
    if (candidates.length === 0) {
      throw new GatewayError(
        "facilitator_error",
        `no facilitator is configured for ${requirements.scheme} on ${requirements.network}`,
        { details: { reason: "no_facilitator", scheme: requirements.scheme, network: requirements.network } },
      );
    }
    for (let index = 0; ; index++) {
      const route = candidates[index] as FacilitatorRoute;
      try {
        return await call(route);
      } catch (error) {
        if (index === candidates.length - 1 || !mayTryNext(error)) throw error;
      }
    }
  }
}
