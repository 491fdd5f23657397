import { z } from "zod/v4";
import type { Price } from "./routeSettings.js";

/**
 * What a route function can read of the request, in the shape of the official `HTTPAdapter` (`@x402/core`), so
 * a function written for `@x402/express` runs unchanged.
 */
export interface RouteRequestAdapter {
  getHeader(name: string): string | undefined;
  getMethod(): string;
  /** The priced path (normalised, without the query). */
  getPath(): string;
  /** The resource's full URL, as the offer names it. */
  getUrl(): string;
  getAcceptHeader(): string;
  getUserAgent(): string;
  getQueryParams(): Record<string, string | string[]>;
  getQueryParam(name: string): string | string[] | undefined;
  /** The parsed body when a body parser ran before the paywall (Express's `req.body`), else `undefined`. */
  getBody(): unknown;
}

/** The request a route function is given: the official `HTTPRequestContext` shape. */
export interface RouteRequestContext {
  adapter: RouteRequestAdapter;
  path: string;
  method: string;
  /** The `PAYMENT-SIGNATURE` header of a paid retry. */
  paymentHeader?: string | undefined;
  /** The route's key (`"GET /api/*"`). */
  routePattern?: string | undefined;
}

/** The price of a payment option computed per request (sync or async): a money string or number, or `{ amount, asset }`. */
export type DynamicPrice = (context: RouteRequestContext) => Price | Promise<Price>;

/** The recipient of a payment option computed per request (sync or async). */
export type DynamicPayTo = (context: RouteRequestContext) => string | Promise<string>;

/** A response body and its `Content-Type` (the official `HTTPResponseBody`). */
export interface ResponseBody {
  contentType: string;
  /** A string (sent as is unless the type is JSON), bytes, or a value sent as JSON. */
  body: unknown;
}

/** A settlement that failed, as `settlementFailedResponseBody` is given it (the official shape). */
export interface SettlementFailure {
  success: false;
  errorReason: string;
  errorMessage?: string | undefined;
  payer?: string | undefined;
  transaction: string;
  network: `${string}:${string}`;
  /** The headers the answer carries (`PAYMENT-RESPONSE`). */
  headers: Record<string, string>;
}

/** The 402 body an API client gets on an unpaid request, computed per request. */
export type UnpaidResponseBody = (context: RouteRequestContext) => ResponseBody | Promise<ResponseBody>;

/** The 402 body of an answer whose settlement failed, computed per request. */
export type SettlementFailedResponseBody = (
  context: RouteRequestContext,
  settleResult: SettlementFailure,
) => ResponseBody | Promise<ResponseBody>;

/** A static response body, as a config file can give it: `{ contentType, body }`. */
export const responseBodySchema = z.strictObject({
  /** The answer's `Content-Type` (`application/json`, `text/plain; charset=utf-8`, …). */
  contentType: z
    .string()
    .regex(/^[\x21-\x7e][\x20-\x7e]*$/, "expected a media type such as application/json")
    .max(256)
    .meta({
      description: "The answer's `Content-Type` (`application/json`, `text/plain; charset=utf-8`, …).",
    }),
  /** The body: a string, sent as is unless the type is JSON; anything else is sent as JSON. */
  body: z.unknown().meta({
    description: "The body: a string, sent as is unless the type is JSON; anything else is sent as JSON.",
  }),
});

/** A function option of code (never in a config file). */
export const functionOf = <T>(what: string) =>
  z.custom<T>((value) => typeof value === "function", { error: `expected ${what} (a function)` });

/** Why a response body cannot be sent (a string or bytes always can; anything else as JSON), or undefined. */
export function unwritableBody(body: unknown): string | undefined {
  if (typeof body === "string" || body instanceof Uint8Array) return undefined;
  try {
    JSON.stringify(body ?? {});
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
