import type { ResponseWriter } from "./ResponsePort.js";
import { utf8Bytes } from "../../common/bytes.js";
import {
  responseBodySchema,
  type ResponseBody,
  type RouteRequestContext,
  type SettlementFailure,
} from "../../pricing/routeFunctions.js";
import { callRouteFunction } from "../../pricing/callRouteFunction.js";
import type { RouteConfig } from "../../pricing/routeSettings.js";
import { encodeBase64Json } from "../../protocol/base64Json.js";
import { GatewayError } from "../../protocol/errors.js";
import { PAYMENT_REQUIRED, PAYMENT_RESPONSE } from "../../protocol/headers.js";
import type { SettleResponse } from "../../protocol/schemas.js";
import { addVary } from "./respond.js";

type BodyField = "unpaidResponseBody" | "settlementFailedResponseBody";

/**
 * A route's `unpaidResponseBody` or `settlementFailedResponseBody` for this request: the configured
 * `{ contentType, body }`, or what its function returns. A function that throws is `route_function_failed`,
 * one that returns no `{ contentType, body }` is `route_function_invalid`.
 */
export async function customResponseBody(
  config: RouteConfig,
  field: BodyField,
  context: () => RouteRequestContext,
  settlement?: SettlementFailure,
): Promise<EncodedBody | undefined> {
  const given = config[field];
  if (given === undefined) return undefined;
  const invalid = (problem: string) =>
    new GatewayError("route_function_invalid", `the route's ${field} gave ${problem}`, {
      details: { field, problem },
    });
  if (typeof given !== "function") return encodeBody(given, invalid);
  const returned: unknown = await callRouteFunction(
    given as (context: RouteRequestContext, settlement: SettlementFailure) => unknown,
    [context(), settlement as SettlementFailure],
    `the route's ${field} function`,
    { field },
  );
  const parsed = responseBodySchema.safeParse(returned);
  if (!parsed.success) {
    const at = parsed.error.issues[0];
    throw invalid(`no { contentType, body }: ${at ? `${at.path.join(".") || "(root)"}: ${at.message}` : ""}`);
  }
  return encodeBody(parsed.data as ResponseBody, invalid);
}

/** A response body as it goes on the wire. */
export interface EncodedBody {
  contentType: string;
  bytes: Uint8Array;
}

/** A string is sent as is unless the type is JSON, bytes as they are, anything else as JSON. */
function encodeBody({ contentType, body }: ResponseBody, invalid: (problem: string) => Error): EncodedBody {
  if (body instanceof Uint8Array) return { contentType, bytes: body };
  const json = /^[^;]*[/+]json\s*(?:;|$)/i.test(contentType);
  if (typeof body === "string" && !json) return { contentType, bytes: utf8Bytes(body) };
  let text: string | undefined;
  try {
    text = JSON.stringify(body ?? {});
  } catch (error) {
    throw invalid(`a body that cannot be written as JSON: ${(error as Error).message}`);
  }
  return { contentType, bytes: utf8Bytes(text ?? "{}") };
}

/** The failed settlement as `settlementFailedResponseBody` is given it (the official shape). */
export function settlementFailure(settlement: SettleResponse): SettlementFailure {
  return {
    success: false,
    errorReason: settlement.errorReason ?? "unknown",
    errorMessage: settlement.errorMessage,
    payer: settlement.payer,
    transaction: settlement.transaction,
    network: settlement.network as `${string}:${string}`,
    headers: { [PAYMENT_RESPONSE.toUpperCase()]: encodeBase64Json(settlement) },
  };
}

/**
 * Answer 402 with a route's own body: the offer stays in `PAYMENT-REQUIRED` (and a failed settlement in
 * `PAYMENT-RESPONSE`).
 */
export function sendCustomPaymentRequired(
  res: ResponseWriter,
  header: string,
  { contentType, bytes }: EncodedBody,
  settlement?: SettleResponse,
): void {
  res.setHeader(PAYMENT_REQUIRED, header);
  if (settlement) res.setHeader(PAYMENT_RESPONSE, encodeBase64Json(settlement));
  res.setHeader("Cache-Control", "no-store");
  addVary(res, "Accept");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.statusCode = 402;
  res.setHeader("Content-Type", contentType);
  res.setHeader("Content-Length", bytes.length);
  res.end(bytes);
}
