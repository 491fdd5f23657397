import type { PaymentPayload, PaymentRequirements } from "../protocol/schemas.js";

/** A payment matched to a route, reserved in the ledger (`token`) and verified by the facilitator. */
export interface Verified {
  payment: PaymentPayload;
  requirements: PaymentRequirements;
  /** Its identity in the ledger. */
  id: string;
  token: string;
  payer: string;
}
