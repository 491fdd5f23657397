import type { PaidEvent } from "../setup/options.js";
import type { PricedRoute } from "../../pricing/RouteTable.js";
import type { RecognitionSettings } from "../../recognition/recognitionSettings.js";
import { toFelt } from "../../recognition/toFelt.js";

/** What one payment must have paid, at least, for its payer to be recorded: one way of paying the route. */
export interface RecordingTerms {
  /** CAIP-2 network, or `x402+cbor`. */
  network: string;
  /** The token address (x402), or the CBOR currency. */
  asset: string;
  /** The merchant's payee: `payTo` (x402), or the merchant pseudonym (x402+cbor). */
  payTo: string;
  /** The route's price in the asset's smallest unit: a payment of less records nothing. */
  amount: bigint;
}

/** A recognized route: where its payers are recorded, and what recording them takes. */
export interface RecordingTarget {
  route: string;
  /** The registry contract its recognition reads (`est_ouverte`), as a felt. */
  contract: string;
  rpcUrl: string;
  terms: RecordingTerms[];
}

/** One payer to record: the felt `est_ouverte` takes, in the route's own contract. */
export interface Recording {
  route: string;
  contract: string;
  rpcUrl: string;
  /** An EVM address or a layer-2 account, as a felt. */
  payer: string;
  /** The settlement it comes from (for logs and deduplication). */
  transaction: string;
}

/**
 * The routes whose payers are recorded: each priced route with recognition on (its own settings, else
 * the top-level default; `false` turns it off), with every way of paying it the gateway offers (its
 * static x402 options and its CBOR offer). A route whose price is computed per request has no fixed
 * terms, so none of its payments records.
 */
export function recordingTargets(
  routes: readonly PricedRoute[],
  recognitionOf: (route: PricedRoute) => RecognitionSettings | false | undefined,
): RecordingTarget[] {
  return routes.flatMap((route) => {
    const settings = recognitionOf(route);
    if (settings === undefined || settings === false) return [];
    const terms: RecordingTerms[] =
      route.dynamic === undefined
        ? route.requirements.map((option) => ({
            network: option.network,
            asset: option.asset,
            payTo: option.payTo,
            amount: BigInt(option.amount),
          }))
        : [];
    if (route.cbor !== undefined) {
      terms.push({
        network: "x402+cbor",
        asset: route.cbor.currency,
        payTo: route.cbor.merchantPseudonym,
        amount: route.cbor.amount,
      });
    }
    return [{ route: route.key, contract: toFelt(settings.contract), rpcUrl: settings.rpcUrl, terms }];
  });
}

/** Why a paid event records nothing: a stable word, for the log line. */
export type NotRecorded =
  "route_not_recognized" | "not_this_merchant" | "below_price" | "payer_has_no_address";

/**
 * What a paid event records: the payer, in the contract of the route it paid for, when the payment went
 * to this merchant's payee, in one of the route's ways of paying, for at least its price; else why not.
 */
export function recordingOf(
  targets: ReadonlyMap<string, RecordingTarget>,
  event: PaidEvent,
): Recording | NotRecorded {
  const target = targets.get(event.route);
  if (target === undefined) return "route_not_recognized";
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const ways = target.terms.filter(
    (terms) =>
      terms.network === event.network && same(terms.asset, event.asset) && same(terms.payTo, event.payTo),
  );
  if (ways.length === 0) return "not_this_merchant";
  if (!/^[0-9]{1,78}$/.test(event.amount)) return "below_price";
  const amount = BigInt(event.amount);
  if (!ways.some((terms) => amount >= terms.amount)) return "below_price";
  const payer = payerFelt(event.payer);
  if (payer === undefined) return "payer_has_no_address";
  return {
    route: target.route,
    contract: target.contract,
    rpcUrl: target.rpcUrl,
    payer,
    transaction: event.transaction,
  };
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const FELT = /^0x[0-9a-fA-F]{1,64}$/;

/**
 * The felt a paid event's payer is recorded as: an EVM address (x402, or an EVM-signed CBOR intent
 * `evm:0x…`), or the layer-2 account a Starknet-signed intent names (`starknet-account:0x…`). A bare
 * key (`ed25519:…`), a Stark key without an account, or a masked payer has no address: not recorded.
 */
export function payerFelt(payer: string): string | undefined {
  if (EVM_ADDRESS.test(payer)) return toFelt(payer);
  const colon = payer.indexOf(":");
  const [kind, identity] = [payer.slice(0, colon), payer.slice(colon + 1)];
  if (kind === "evm" && EVM_ADDRESS.test(identity)) return toFelt(identity);
  if (kind === "starknet-account" && FELT.test(identity)) {
    try {
      return toFelt(identity);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The gateway's `onPaid` hook that records qualifying payers: each paid event is judged by
 * {@link recordingOf}; a recording goes to `write` (a recorder of the contract's chain), anything else
 * is only logged. Never throws.
 */
export function recordPaidPayers(options: {
  targets: readonly RecordingTarget[];
  write: (recording: Recording) => void;
  log?: (line: string) => void;
}): (event: PaidEvent) => void {
  const targets = new Map(options.targets.map((target) => [target.route, target]));
  return (event) => {
    const verdict = recordingOf(targets, event);
    if (typeof verdict === "string") {
      if (verdict !== "route_not_recognized")
        options.log?.(`recognition: ${event.payer} on ${event.route} not recorded (${verdict})`);
      return;
    }
    try {
      options.write(verdict);
    } catch (error) {
      options.log?.(`recognition: recording ${verdict.payer} failed: ${(error as Error).message}`);
    }
  };
}
