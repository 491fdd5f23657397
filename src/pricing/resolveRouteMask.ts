import {
  completeMask,
  encodeMaskDocument,
  isOpenFieldsMask,
  maskRefOf,
  type RevelationMask,
} from "../protocol/cbor/masks/RevelationMask.js";
import type { CborRouteConfig } from "./cborRouteSettings.js";
import { PriceError } from "./parseMoney.js";

/**
 * A route's revelation mask from its `revelationMask` (every part not named Open), with the ref that
 * names it and the document published with its offers. A `revelationMaskRef` must name that mask; a
 * mask that hides the payer cannot go with the humanity gate (which checks the payer's claim).
 */
export function resolveRouteMask(
  config: Pick<CborRouteConfig, "revelationMask" | "revelationMaskRef">,
  acceptsHumanityGate: boolean,
): {
  revelationMask: RevelationMask;
  revelationMaskRef: string;
  revelationMaskDocument: Uint8Array | undefined;
} {
  let mask: RevelationMask;
  try {
    mask = completeMask(config.revelationMask ?? {});
  } catch (error) {
    throw new PriceError(`cbor.revelationMask: ${(error as Error).message}`);
  }
  const ref = maskRefOf(mask);
  if (config.revelationMaskRef !== undefined && config.revelationMaskRef !== ref) {
    throw new PriceError(
      `cbor.revelationMaskRef: "${config.revelationMaskRef}" names no mask of this route (its mask is ${ref}); set revelationMask, or leave the ref out`,
    );
  }
  if (acceptsHumanityGate && mask.intent.subject !== "Open") {
    throw new PriceError(
      "cbor: a revelationMask that hides the intent's subject cannot go with acceptsHumanityGate (the gate checks the payer's claim)",
    );
  }
  return {
    revelationMask: mask,
    revelationMaskRef: ref,
    revelationMaskDocument: isOpenFieldsMask(mask) ? undefined : encodeMaskDocument(mask),
  };
}
