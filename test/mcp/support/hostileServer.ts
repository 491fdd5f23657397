import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";

/** A 402 server of a test's own on loopback, recording what reached it. */
export interface HostileServer {
  url: string;
  /** Every request, in order: its path and whether it carried a PAYMENT-SIGNATURE. */
  requests: { path: string; paid: boolean }[];
  /** Every PAYMENT-SIGNATURE received, decoded. */
  payments: PaymentPayload[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, paid: boolean) => void;

/** Starts `handler` on 127.0.0.1, on a free port. */
export async function startHostileServer(handler: Handler): Promise<HostileServer> {
  const requests: HostileServer["requests"] = [];
  const payments: PaymentPayload[] = [];
  const server: Server = createServer((req, res) => {
    const signature = req.headers["payment-signature"];
    const paid = typeof signature === "string";
    requests.push({ path: req.url ?? "", paid });
    if (paid) payments.push(decodePaymentSignatureHeader(signature));
    handler(req, res, paid);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    payments,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A header value the way x402 V2 encodes its JSON headers (base64 of the JSON), whatever its types. */
export function encodeJsonHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64");
}

/** How many bytes `stream` wrote before the client went away (a limit it never reaches in practice). */
export interface Stream {
  /** Resolves with the bytes written once the response ended or its connection closed. */
  done: Promise<number>;
}

const CHUNK = Buffer.alloc(64 * 1024, "x");

/**
 * Writes up to `total` bytes, one shared 64 KiB chunk at a time, waiting for the socket to drain:
 * a 1.5 GB body without ever allocating it. Stops when the client closes the connection.
 */
export function streamBody(res: ServerResponse, total: number): Stream {
  let written = 0;
  const done = new Promise<number>((resolve) => {
    let closed = false;
    res.on("close", () => {
      closed = true;
      resolve(written);
    });
    const pump = () => {
      while (!closed && written < total) {
        written += CHUNK.byteLength;
        if (!res.write(CHUNK)) {
          res.once("drain", pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  });
  return { done };
}
