import type { PaymentPayload, PaymentRequirements, SettleResponse } from "../../protocol/schemas.js";

/**
 * The request a hook sees: what the official `HTTPRequestContext` carries (method, path, the payment
 * header, the route's pattern) with the headers, never the framework's objects.
 */
export interface HookRequest {
  method: string;
  /** The priced path (no query). */
  path: string;
  /** The route's key as configured, e.g. `GET /quote` (the official `routePattern`). */
  routePattern: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  paymentHeader?: string | undefined;
}

/**
 * What a verify or settle hook sees of the payment. For base64 JSON it is the official context:
 * `paymentPayload`, the matched `requirements`, the route's `declaredExtensions`. For `application/x402+cbor`
 * (the official is silent) `paymentPayload` and `requirements` are absent and `cbor` says what the intent
 * pays; hooks tell the two apart by `format`.
 */
export interface VerifyContext {
  format: "x402" | "x402+cbor";
  paymentPayload?: Readonly<PaymentPayload> | undefined;
  requirements?: Readonly<PaymentRequirements> | undefined;
  declaredExtensions: Readonly<Record<string, unknown>>;
  cbor?: Readonly<CborHookView> | undefined;
  transportContext: { request: HookRequest };
}

/** A CBOR payment as hooks see it: what it pays, to whom, from whom (absent when the mask hides the payer). */
export interface CborHookView {
  amount: string;
  currency: string;
  merchant: string;
  payer?: string | undefined;
}

/** The facilitator's verdict (or a hook's): the official `VerifyResponse`. */
export interface HookVerifyResponse {
  isValid: boolean;
  invalidReason?: string | undefined;
  invalidMessage?: string | undefined;
  payer?: string | undefined;
}

/**
 * A settlement result given by a hook (`skip`, `recovered`): the official `SettleResponse`. A CBOR payment
 * also needs `receipt`, the facilitator's signed receipt bytes, checked as the facilitator's are.
 */
export type HookSettleResponse = SettleResponse & { receipt?: Uint8Array };

export type SettlePhase = "before-handler" | "after-handler";
export interface SettleContext extends VerifyContext {
  phase: SettlePhase;
}

export type Awaitable<T> = T | Promise<T>;
export type Abort = { abort: true; reason: string; message?: string };

export type BeforeVerifyHook = (
  context: VerifyContext,
) => Awaitable<void | Abort | { skip: true; result: HookVerifyResponse }>;
export type AfterVerifyHook = (
  context: VerifyContext & { result: Readonly<HookVerifyResponse> },
) => Awaitable<void | Abort | { skipHandler: true; response?: { contentType?: string; body?: unknown } }>;
export type OnVerifyFailureHook = (
  context: VerifyContext & { error: Error },
) => Awaitable<void | { recovered: true; result: HookVerifyResponse }>;
export type BeforeSettleHook = (
  context: SettleContext,
) => Awaitable<void | Abort | { skip: true; result: HookSettleResponse }>;
export type AfterSettleHook = (
  context: SettleContext & { result: Readonly<SettleResponse> },
) => Awaitable<void>;
export type OnSettleFailureHook = (
  context: SettleContext & { error: Error },
) => Awaitable<void | { recovered: true; result: HookSettleResponse }>;
export type ProtectedRequestHook = (
  context: HookRequest,
  routeConfig: Readonly<Record<string, unknown>>,
) => Awaitable<void | { grantAccess: true } | { abort: true; reason: string }>;

/** One hook or several, run in order: the first to return a decision wins (as the official registers them). */
type OneOrMore<H> = H | readonly H[];

/**
 * The official `x402ResourceServer` / `x402HTTPResourceServer` lifecycle hooks (docs/hooks.md). A hook that
 * throws or does not answer within 10 s is logged and skipped, as the official skips it; only
 * `onProtectedRequest` fails closed (`500 hook_failed`), since it decides whether anything is offered.
 */
export interface PaymentHooks {
  onProtectedRequest?: OneOrMore<ProtectedRequestHook> | undefined;
  onBeforeVerify?: OneOrMore<BeforeVerifyHook> | undefined;
  onAfterVerify?: OneOrMore<AfterVerifyHook> | undefined;
  onVerifyFailure?: OneOrMore<OnVerifyFailureHook> | undefined;
  onBeforeSettle?: OneOrMore<BeforeSettleHook> | undefined;
  onAfterSettle?: OneOrMore<AfterSettleHook> | undefined;
  onSettleFailure?: OneOrMore<OnSettleFailureHook> | undefined;
}

export const HOOK_NAMES = [
  "onProtectedRequest",
  "onBeforeVerify",
  "onAfterVerify",
  "onVerifyFailure",
  "onBeforeSettle",
  "onAfterSettle",
  "onSettleFailure",
] as const satisfies readonly (keyof PaymentHooks)[];
export type HookName = (typeof HOOK_NAMES)[number];

/** Each hook as a list, in order; several hook sets (plugins) concatenated. */
export type HookLists = {
  [K in HookName]: Array<Extract<NonNullable<PaymentHooks[K]>, (...args: never) => unknown>>;
};

export function hookLists(...sets: ReadonlyArray<PaymentHooks | undefined>): HookLists {
  const lists = Object.fromEntries(HOOK_NAMES.map((name) => [name, []])) as unknown as HookLists;
  for (const set of sets) {
    if (set === undefined) continue;
    for (const name of HOOK_NAMES) {
      const value = set[name];
      if (value === undefined) continue;
      (lists[name] as unknown[]).push(...(Array.isArray(value) ? value : [value]));
    }
  }
  return lists;
}

/** Problems with a hooks object (unknown keys, what is not a function): for the options and for plugins. */
export function hooksProblems(value: unknown): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return ["expected an object of hooks (onBeforeVerify, onAfterSettle, …)"];
  const problems: string[] = [];
  for (const [key, hook] of Object.entries(value)) {
    if (!(HOOK_NAMES as readonly string[]).includes(key)) {
      problems.push(`${key}: not a hook (expected one of ${HOOK_NAMES.join(", ")})`);
      continue;
    }
    const list: unknown[] = Array.isArray(hook) ? hook : [hook];
    if (hook === undefined) continue;
    if (!list.every((entry) => typeof entry === "function"))
      problems.push(`${key}: expected a function or a list of functions`);
  }
  return problems;
}
