import { isEvmNetwork, type PaymentPayload, type PaymentRequirements } from "../../protocol/schemas.js";
import { parseEvmExactPayload } from "../../protocol/parseEvmExactPayload.js";

export type RequirementsMatch =
  | { ok: true; requirements: PaymentRequirements }
  | { ok: false; field: string; expected: string; received: string };

const sameAddress = (a: string, b: string): boolean => a === b || a.toLowerCase() === b.toLowerCase();
const DIGITS = /^[0-9]+$/;
/** Two amounts in decimal digits that are the same integer (an empty or signed string is no amount). */
const sameAmount = (a: string, b: string): boolean =>
  DIGITS.test(a) && DIGITS.test(b) && (a === b || BigInt(a) === BigInt(b));

/** The fields compared, in order, and how: addresses case-insensitively, amounts as integers. */
const FIELDS: ReadonlyArray<[keyof PaymentRequirements, (ours: string, theirs: string) => boolean]> = [
  ["scheme", (a, b) => a === b],
  ["network", (a, b) => a === b],
  ["asset", sameAddress],
  ["payTo", sameAddress],
  ["amount", sameAmount],
];

function compare(ours: PaymentRequirements, payment: PaymentPayload): RequirementsMatch {
  const theirs = payment.accepted;
  for (const [field, equal] of FIELDS) {
    if (!equal(String(ours[field]), String(theirs[field]))) {
      return {
        ok: false,
        field: `accepted.${field}`,
        expected: String(ours[field]),
        received: String(theirs[field]),
      };
    }
  }
  // The authorization itself must pay what the offer asks, to whom it asks. Only an EVM network's payload
  // carries one: another network's (a Solana transaction) is not put through the EVM schema to fail it.
  const evm = isEvmNetwork(ours.network) ? parseEvmExactPayload(payment.payload) : undefined;
  if (evm?.success) {
    const { to, value } = evm.data.authorization;
    if (!sameAddress(to, ours.payTo)) {
      return { ok: false, field: "payload.authorization.to", expected: ours.payTo, received: to };
    }
    if (!sameAmount(value, ours.amount)) {
      return { ok: false, field: "payload.authorization.value", expected: ours.amount, received: value };
    }
  }
  return { ok: true, requirements: ours };
}

/** How many compared fields agreed before the first that did not. */
function closeness(field: string): number {
  const index = FIELDS.findIndex(([name]) => `accepted.${name}` === field);
  return index === -1 ? FIELDS.length : index;
}

/**
 * Find the route's own requirements that the payment's `accepted` names, field by field (never by
 * deep equality of two JSON objects). On no match, reports the first differing field of the closest
 * candidate (same scheme and network when there is one).
 */
export function matchRequirements(
  route: readonly PaymentRequirements[],
  payment: PaymentPayload,
): RequirementsMatch {
  let best: { result: RequirementsMatch; score: number } | undefined;
  for (const ours of route) {
    const result = compare(ours, payment);
    if (result.ok) return result;
    const score = closeness(result.field);
    if (!best || score > best.score) best = { result, score };
  }
  return (
    best?.result ?? {
      ok: false,
      field: "accepted",
      expected: "a payment option of this route",
      received: "none",
    }
  );
}

/**
 * Whether the payment fits more than one option of a route with different terms (timeout or `extra`): for
 * requirements computed per request, the payment must name exactly one of them.
 */
export function fitsSeveral(route: readonly PaymentRequirements[], payment: PaymentPayload): boolean {
  const fitting = route.filter((ours) => compare(ours, payment).ok).map((ours) => JSON.stringify(ours));
  return new Set(fitting).size > 1;
}
