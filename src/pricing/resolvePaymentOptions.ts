import type { PaymentRequirements } from "../protocol/schemas.js";
import { GatewayError } from "../protocol/errors.js";
import { callRouteFunction } from "./callRouteFunction.js";
import { payToProblem } from "./payToProblem.js";
import type { RouteRequestContext } from "./routeFunctions.js";
import { priceSchema, type PaymentOption, type Price, type RouteConfig } from "./routeSettings.js";
import type { AssetTable } from "./knownAssets.js";
import { PriceError, parseMoney } from "./parseMoney.js";

/** Route-independent defaults a payment option falls back on. */
export interface PricingDefaults {
  payTo?: string | undefined;
  network?: string | undefined;
  maxTimeoutSeconds: number;
  assets: AssetTable;
}

function resolvePrice(
  price: Price,
  network: string,
  assets: AssetTable,
): Pick<PaymentRequirements, "amount" | "asset" | "extra"> {
  if (typeof price === "string" || typeof price === "number") {
    const asset = assets.defaultFor(network);
    if (!asset) {
      throw new PriceError(
        `no default asset is known for ${network}: give { amount, asset, extra } or register it in \`assets\``,
      );
    }
    const extra = asset.name !== undefined ? { name: asset.name, version: asset.version ?? "1" } : undefined;
    return { amount: parseMoney(String(price), asset.decimals).toString(), asset: asset.address, extra };
  }
  if (BigInt(price.amount) === 0n)
    throw new PriceError("the amount is zero: leave a free route out of the table");
  const known = assets.find(network, price.asset);
  const extra =
    price.extra ??
    (known?.name !== undefined ? { name: known.name, version: known.version ?? "1" } : undefined);
  return { amount: price.amount, asset: price.asset, extra };
}

/** The message for an option that names no `network` (or `payTo`) while neither the route nor the top level does. */
export const NO_DEFAULT = (field: "payTo" | "network"): string =>
  `no ${field}: give it here, on the route, or as the top-level \`${field}\``;

/** What a route's options resolve to: its requirements, and for functions of the request, how to compute them. */
export interface ResolvedOptions {
  /**
   * The requirements offered, in order. For a route with functions, a template (their fields are `""`):
   * never offered nor matched — {@link ResolvedOptions.dynamic} computes each request's.
   */
  requirements: PaymentRequirements[];
  /** For a route whose `price` or `payTo` is a function: this request's requirements (throws a `GatewayError`). */
  dynamic?: ((context: RouteRequestContext) => Promise<PaymentRequirements[]>) | undefined;
}

/** Where an option of the route is written, for messages: `price` (the route's own) or `accepts[i]`. */
const whereOf = (route: RouteConfig, index: number): string =>
  route.price !== undefined && index === 0 ? "price" : `accepts[${index - (route.price ? 1 : 0)}]`;

/**
 * The requirements a route offers, in order: its own `price` first, then each of `accepts`. Computed once at
 * start-up; throws {@link PriceError} for a price that cannot be paid. A `price` or `payTo` function is
 * computed per request by `dynamic`, and what it returns is checked as strictly as a configured one.
 */
export function resolvePaymentOptions(route: RouteConfig, defaults: PricingDefaults): ResolvedOptions {
  const options: PaymentOption[] = [];
  if (route.price !== undefined) options.push({ price: route.price });
  options.push(...(route.accepts ?? []));
  const plans = options.map((option, index) => {
    const network = option.network ?? route.network ?? defaults.network;
    const payTo = option.payTo ?? route.payTo ?? defaults.payTo;
    try {
      if (network === undefined) throw new PriceError(NO_DEFAULT("network"));
      if (payTo === undefined) throw new PriceError(NO_DEFAULT("payTo"));
      const build = (price: Price, payee: string): PaymentRequirements => {
        const resolved = resolvePrice(price, network, defaults.assets);
        const extra =
          option.extra === undefined ? resolved.extra : { ...(resolved.extra ?? {}), ...option.extra };
        const requirements: PaymentRequirements = {
          scheme: option.scheme ?? route.scheme ?? "exact",
          network,
          amount: resolved.amount,
          asset: resolved.asset,
          payTo: payee,
          maxTimeoutSeconds:
            option.maxTimeoutSeconds ?? route.maxTimeoutSeconds ?? defaults.maxTimeoutSeconds,
        };
        if (extra !== undefined) requirements.extra = extra;
        return requirements;
      };
      const { price } = option;
      if (typeof price !== "function" && typeof payTo !== "function") {
        return { template: build(price, payTo) };
      }
      const template: PaymentRequirements = {
        scheme: option.scheme ?? route.scheme ?? "exact",
        network,
        amount: "",
        asset: "",
        payTo: "",
        maxTimeoutSeconds: option.maxTimeoutSeconds ?? route.maxTimeoutSeconds ?? defaults.maxTimeoutSeconds,
      };
      // A static part is checked now, as for any route.
      if (typeof price !== "function") resolvePrice(price, network, defaults.assets);
      const where = whereOf(route, index);
      return {
        template,
        compute: async (context: RouteRequestContext) => {
          const payee =
            typeof payTo === "function"
              ? await callRouteFunction(payTo, [context], `the route's payTo function (${where})`, {
                  field: "payTo",
                  option: where,
                })
              : payTo;
          const amount =
            typeof price === "function"
              ? await callRouteFunction(price, [context], `the route's price function (${where})`, {
                  field: "price",
                  option: where,
                })
              : price;
          return checkedBuild(build, amount, payee, network, where);
        },
      };
    } catch (error) {
      throw new PriceError(`${whereOf(route, index)}: ${(error as Error).message}`);
    }
  });
  const requirements = plans.map((plan) => plan.template);
  if (!plans.some((plan) => plan.compute !== undefined)) return { requirements };
  return {
    requirements,
    dynamic: (context) =>
      Promise.all(plans.map((plan) => plan.compute?.(context) ?? Promise.resolve(plan.template))),
  };
}

/** What a function returned, checked as a configured price and payee are: else `route_function_invalid`. */
function checkedBuild(
  build: (price: Price, payee: string) => PaymentRequirements,
  price: unknown,
  payee: unknown,
  network: string,
  where: string,
): PaymentRequirements {
  // What the function returned is server data: the operator reads it in the log (the cause), the client never.
  const invalid = (field: "price" | "payTo", problem: string) =>
    new GatewayError(
      "route_function_invalid",
      `the route's ${field} function (${where}) returned what cannot be paid`,
      {
        details: { field, option: where },
        cause: new Error(`${problem}; it returned ${preview(field === "price" ? price : payee)}`),
      },
    );
  if (typeof payee !== "string") throw invalid("payTo", `expected an address, got ${typeof payee}`);
  const payeeProblem = payToProblem(payee, network);
  if (payeeProblem !== undefined) throw invalid("payTo", payeeProblem);
  const parsed = priceSchema.safeParse(price);
  if (!parsed.success) throw invalid("price", parsed.error.issues[0]?.message ?? "not a price");
  try {
    return build(parsed.data, payee);
  } catch (error) {
    throw invalid("price", (error as Error).message);
  }
}

/** A returned value as a log line shows it: a string quoted (at most 200 characters), else its type. */
const preview = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value.slice(0, 200)) : typeof value;
