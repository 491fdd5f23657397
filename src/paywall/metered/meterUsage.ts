import type { PricedRoute } from "../../pricing/RouteTable.js";
import { GatewayError } from "../../protocol/errors.js";
import type { HeldResponse, ResponsePort } from "../responses/ResponsePort.js";
import type { Verified } from "../wires/PaymentWire.js";
import type { VerifiedJsonPayment } from "../wires/JsonPaymentWire.js";

/** The header a metered route's answer reports what it used in, unless the route names another. */
export const DEFAULT_USAGE_HEADER = "x402-usage";

/** What a metered (`upto`) payment settles: the amount the answer reported, or nothing. */
export type MeteredSettlement = { kind: "settle"; verified: Verified } | { kind: "nothing" };

/**
 * For an `upto` payment: what to settle, read from the held answer's usage header (a decimal amount in the
 * asset's atomic units), else from `res.reportedUsage()` (Express: `res.locals.x402Usage`, a string, number
 * or bigint). Never more than the authorization: a report above it is the handler's error
 * (`502 usage_invalid`, nothing settled). No report, or 0: nothing is settled. Other schemes: as verified.
 */
export function meterUsage(
  route: PricedRoute,
  verified: Verified,
  held: HeldResponse,
  res?: Pick<ResponsePort, "reportedUsage">,
): MeteredSettlement {
  const payment = verified.payment as Partial<VerifiedJsonPayment>;
  const requirements = payment.requirements;
  if (requirements?.scheme !== "upto") return { kind: "settle", verified };
  const name = (route.config.usageHeader ?? DEFAULT_USAGE_HEADER).toLowerCase();
  const headers = held.snapshot().headers;
  const reported = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  // The header first; else what the handler left through its framework (Express: res.locals.x402Usage).
  const given = reported ?? res?.reportedUsage?.();
  const text = Array.isArray(given)
    ? given.join(",")
    : given === undefined || given === null
      ? "0"
      : String(given);
  if (!/^(0|[1-9][0-9]{0,77})$/.test(text.trim())) throw usageInvalid(name, "not a decimal integer");
  const used = BigInt(text.trim());
  if (used > BigInt(requirements.amount))
    throw usageInvalid(name, `above the authorized ${requirements.amount}`);
  if (used === 0n) return { kind: "nothing" };
  return {
    kind: "settle",
    verified: {
      ...verified,
      payment: { ...payment, requirements: { ...requirements, amount: used.toString() } },
    },
  };
}

function usageInvalid(header: string, problem: string): GatewayError {
  return new GatewayError(
    "usage_invalid",
    `the metered answer's ${header} is ${problem}: nothing was settled`,
    {
      details: { header },
    },
  );
}
