/** Header names of x402 V2 (lower case, as Node exposes them). */
export const PAYMENT_REQUIRED = "payment-required";
export const PAYMENT_SIGNATURE = "payment-signature";
export const PAYMENT_RESPONSE = "payment-response";
export const SIGN_IN_WITH_X = "sign-in-with-x";

/** Largest `PAYMENT-SIGNATURE` / `SIGN-IN-WITH-X` value accepted in base64 JSON (docs/hardening.md). */
export const MAX_JSON_PAYMENT_HEADER_BYTES = 16 * 1024;
