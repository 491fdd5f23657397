import type { ErrorCode } from "../../src/protocol/errors.js";

/** One hostile request of the soak, and the catalogue code the gateway must refuse it with. */
export interface HostileRequest {
  path: string;
  headers: Record<string, string>;
  refusedWith: ErrorCode;
}

/**
 * The soak's hostile requests, in turn: a 70,000-byte payment header, one that is not base64 JSON, an
 * encoded `/` in a priced path, a real payment with its amount changed after signing.
 */
export function hostileRequests(nextPayment: () => Promise<string>): () => Promise<HostileRequest> {
  let count = 0;
  return async (): Promise<HostileRequest> => {
    switch (count++ % 4) {
      case 0:
        // Over the 16 KiB a JSON payment header may have, under the listener's limit (room for CBOR):
        // the paywall itself refuses it.
        return {
          path: "/paid/h",
          headers: { "payment-signature": "A".repeat(70_000) },
          refusedWith: "header_too_large",
        };
      case 1:
        return {
          path: "/paid/h",
          headers: { "payment-signature": "not*base64{json" },
          refusedWith: "invalid_payment",
        };
      case 2:
        return { path: "/paid%2Fh", headers: {}, refusedWith: "invalid_path" };
      default: {
        const payment = JSON.parse(Buffer.from(await nextPayment(), "base64").toString()) as {
          accepted: { amount: string };
        };
        payment.accepted.amount = "1";
        return {
          path: "/paid/h",
          headers: { "payment-signature": Buffer.from(JSON.stringify(payment)).toString("base64") },
          refusedWith: "payment_mismatch",
        };
      }
    }
  };
}
