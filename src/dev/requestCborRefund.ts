import { decodeCborRevocationList, encodeCborRefundRequest } from "../protocol/cbor/facilitatorMessages.js";
import { CBOR_MEDIA_TYPE } from "../protocol/cbor/profile.js";

export type CborRefundAnswer =
  { ok: true; revocation: Uint8Array } | { ok: false; status: number; error: string; message?: string };

export interface CborRefundOptions {
  /** The merchant's bearer token (`merchantToken`); without it the facilitator answers 401. */
  merchantToken?: string | undefined;
  /** Smallest units to refund (default the whole payment). */
  amount?: bigint | undefined;
}

/** `POST {facilitator}/refund` on the local CBOR facilitator, as the merchant: the revocation, or why it refused. */
export async function requestCborRefund(
  facilitatorUrl: string,
  receipt: Uint8Array,
  options: CborRefundOptions = {},
): Promise<CborRefundAnswer> {
  const { amount, merchantToken } = options;
  const response = await fetch(`${facilitatorUrl.replace(/\/+$/, "")}/refund`, {
    method: "POST",
    headers: {
      "content-type": CBOR_MEDIA_TYPE,
      ...(merchantToken === undefined ? {} : { authorization: `Bearer ${merchantToken}` }),
    },
    body: Buffer.from(encodeCborRefundRequest({ receipt, amount })),
  });
  if (response.ok) return { ok: true, revocation: new Uint8Array(await response.arrayBuffer()) };
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: string; message?: string };
    return {
      ok: false,
      status: response.status,
      error: body.error ?? "unknown",
      ...(body.message === undefined ? {} : { message: body.message }),
    };
  } catch {
    return { ok: false, status: response.status, error: text || response.statusText };
  }
}

/** `GET {facilitator}/revocations`: every revocation the facilitator signed (encoded SignedClaims). */
export async function fetchCborRevocations(facilitatorUrl: string): Promise<Uint8Array[]> {
  const response = await fetch(`${facilitatorUrl.replace(/\/+$/, "")}/revocations`);
  if (!response.ok) throw new Error(`GET /revocations: ${response.status} ${response.statusText}`);
  return decodeCborRevocationList(new Uint8Array(await response.arrayBuffer()));
}
