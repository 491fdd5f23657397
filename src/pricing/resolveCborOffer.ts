import type { CborRouteConfig } from "./cborRouteSettings.js";
import { MAX_CBOR_UINT } from "../protocol/cbor/CborValue.js";
import { DEFAULT_CLAIM_SCHEMA_REF, type Currency } from "../protocol/cbor/profile.js";
import type { RevelationMask } from "../protocol/cbor/masks/RevelationMask.js";
import { resolveRouteMask } from "./resolveRouteMask.js";
import { parseHumanityIssuers } from "./humanityIssuers.js";
import { PriceError } from "./parseMoney.js";
import { DEFAULT_ACCEPTED_SIGNERS, type SignerBackendName } from "../signers/SignerBackend.js";

/** A route's CBOR offer with every default filled in: what each PaymentRequest of the route says. */
export interface CborRouteOffer {
  currency: Currency;
  amount: bigint;
  merchantPseudonym: string;
  serviceId: string;
  revelationMaskRef: string;
  /** The mask the ref names: what payments of the route are checked against. */
  revelationMask: RevelationMask;
  /** Its canonical document, published with each offer; absent for the default all-Open mask. */
  revelationMaskDocument: Uint8Array | undefined;
  claimSchemaRef: string;
  acceptsHumanityGate: boolean;
  /** Humanity-claim issuers the route trusts (public keys); never empty when the gate is on. */
  humanityIssuers: Uint8Array[];
  /** Lifetime of an offer, in seconds. */
  deadlineSeconds: number;
  /** The signer backends whose intents the route accepts. */
  acceptedSigners: readonly SignerBackendName[];
}

export interface CborPricingDefaults {
  merchantPseudonym?: string | undefined;
  deadlineSeconds: number;
  /** Humanity-claim issuers (hex) of routes that name none. */
  humanityIssuers?: readonly string[] | undefined;
  /** Signer backends of routes that name none (default ServiceAuthSigner and LayerTwoSigner). */
  signers?: readonly SignerBackendName[] | undefined;
}

/** Fill a route's `cbor` settings from the shared ones; throws {@link PriceError} when one is missing. */
export function resolveCborOffer(
  key: string,
  config: CborRouteConfig,
  defaults: CborPricingDefaults,
): CborRouteOffer {
  const merchantPseudonym = config.merchantPseudonym ?? defaults.merchantPseudonym;
  if (merchantPseudonym === undefined) {
    throw new PriceError("cbor: needs merchantPseudonym (on the route or in the top-level cbor settings)");
  }
  const amount = BigInt(config.amount);
  if (amount > MAX_CBOR_UINT) throw new PriceError("cbor: the amount is above 2^256 - 1 (a uint256)");
  const acceptsHumanityGate = config.acceptsHumanityGate ?? false;
  let humanityIssuers: Uint8Array[];
  try {
    humanityIssuers = parseHumanityIssuers(config.humanityIssuers ?? defaults.humanityIssuers ?? []);
  } catch (error) {
    throw new PriceError(`cbor.${(error as Error).message}`);
  }
  if (acceptsHumanityGate && humanityIssuers.length === 0) {
    throw new PriceError(
      "cbor: acceptsHumanityGate is on but no humanity issuer is trusted, so nobody could pay: list issuer keys in humanityIssuers (on the route or in the top-level cbor settings)",
    );
  }
  const mask = resolveRouteMask(config, acceptsHumanityGate);
  return {
    ...mask,
    currency: config.currency,
    amount,
    merchantPseudonym,
    serviceId: config.serviceId ?? key,
    claimSchemaRef: config.claimSchemaRef ?? DEFAULT_CLAIM_SCHEMA_REF,
    acceptsHumanityGate,
    humanityIssuers,
    deadlineSeconds: config.deadlineSeconds ?? defaults.deadlineSeconds,
    acceptedSigners: config.signers ?? defaults.signers ?? DEFAULT_ACCEPTED_SIGNERS,
  };
}
