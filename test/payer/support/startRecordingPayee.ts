import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentRequest } from "../../../src/protocol/cbor/PaymentRequest.js";
import { DEFAULT_CLAIM_SCHEMA_REF, DEFAULT_REVELATION_MASK_REF } from "../../../src/protocol/cbor/profile.js";

export const PAYEE = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
export const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** One request as it reached the payee: where, and which signed headers it carried. */
export interface RecordedRequest {
  method: string;
  path: string;
  host: string;
  signed: ("payment-signature" | "x-payment" | "sign-in-with-x")[];
}

export interface RecordingPayee {
  /** Its port; it listens on every interface, so a non-loopback address of this machine reaches it. */
  port: number;
  requests: RecordedRequest[];
  /** The requests that carried a payment or a sign-in. */
  signed(): RecordedRequest[];
  close(): Promise<void>;
}

export interface RecordingPayeeOptions {
  /** Where a signed request is redirected (307), instead of being served. */
  redirectSignedTo?: string;
}

/**
 * A payee that records every request. `GET /json/<network>` answers 402 with an x402 V2 offer on that
 * network (and a sign-in-with-x challenge for the chain, bound to the Host it was asked by); `GET /cbor`
 * a CBOR PaymentRequest; a request carrying a signature is answered 200 (with a receipt for a JSON payment).
 */
export async function startRecordingPayee(options: RecordingPayeeOptions = {}): Promise<RecordingPayee> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const signed = (["payment-signature", "x-payment", "sign-in-with-x"] as const).filter(
      (name) => req.headers[name] !== undefined,
    );
    requests.push({ method: req.method ?? "", path: req.url ?? "", host: req.headers.host ?? "", signed });
    req.resume();
    if (signed.length > 0 && options.redirectSignedTo !== undefined) {
      res.writeHead(307, { location: options.redirectSignedTo }).end();
      return;
    }
    if (signed.length > 0) return served(req, res);
    if (req.url?.startsWith("/cbor")) return offerCbor(res);
    const network = decodeURIComponent(/^\/json\/([^/?]+)/.exec(req.url ?? "")?.[1] ?? "eip155:84532");
    return offerJson(req, res, network);
  });
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    signed: () => requests.filter((request) => request.signed.length > 0),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

function offerJson(req: IncomingMessage, res: ServerResponse, network: string): void {
  const host = req.headers.host ?? "";
  const url = `http://${host}${req.url ?? "/"}`;
  const offer = {
    x402Version: 2,
    error: "payment_required",
    resource: { url, description: "a priced thing", mimeType: "text/plain" },
    accepts: [
      {
        scheme: "exact",
        network,
        amount: "1000",
        asset: TOKEN,
        payTo: PAYEE,
        maxTimeoutSeconds: 60,
        extra: { name: "TestUSDC", version: "1" },
      },
    ],
    extensions: {
      "sign-in-with-x": {
        info: {
          domain: host,
          uri: url,
          version: "1",
          nonce: "0123456789abcdef0123456789abcdef",
          issuedAt: new Date().toISOString(),
          expirationTime: new Date(Date.now() + 300_000).toISOString(),
          resources: [url],
        },
        supportedChains: [{ chainId: network, type: "eip191" }],
      },
    },
  };
  res.writeHead(402, { "content-type": "application/json", "payment-required": json(offer) });
  res.end(JSON.stringify(offer));
}

function offerCbor(res: ServerResponse): void {
  const request = encodePaymentRequest({
    currency: "USDC",
    amount: 1000n,
    merchantPseudonym: "merchant:test",
    serviceId: "GET /cbor",
    deadline: new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 300_000),
    revelationMaskRef: DEFAULT_REVELATION_MASK_REF,
    acceptsHumanityGate: false,
    claimSchemaRef: DEFAULT_CLAIM_SCHEMA_REF,
  });
  res.writeHead(402, { "payment-required": Buffer.from(request).toString("base64") }).end();
}

function served(req: IncomingMessage, res: ServerResponse): void {
  const signature = req.headers["payment-signature"];
  const headers: Record<string, string> = { "content-type": "text/plain" };
  if (typeof signature === "string" && !req.url?.startsWith("/cbor")) {
    try {
      const payload = JSON.parse(Buffer.from(signature, "base64").toString("utf8")) as {
        accepted: { network: string };
        payload: { authorization: { from: string } };
      };
      headers["payment-response"] = json({
        success: true,
        transaction: `0x${"ab".repeat(32)}`,
        network: payload.accepted.network,
        payer: payload.payload.authorization.from,
      });
    } catch {
      // Not a JSON payment: served without a receipt.
    }
  }
  res.writeHead(200, headers).end("the priced thing");
}

/** A `fetch` that resolves `host` to 127.0.0.1, as DNS would for a payee on another machine. */
export function resolvingFetch(host: string): typeof fetch {
  return (input, init) => {
    const original = input instanceof Request ? input : undefined;
    const url = new URL(original?.url ?? String(input));
    if (url.hostname === host) url.hostname = "127.0.0.1";
    return fetch(original ? new Request(url, original) : url, init);
  };
}
