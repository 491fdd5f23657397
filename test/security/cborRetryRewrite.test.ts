import type { IncomingHttpHeaders } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dropPaymentContentType, matchWithCborRetry } from "../../src/paywall/wires/cborRouting.js";
import { buildRouteTable } from "../../src/pricing/buildRouteTable.js";
import { PAY_TO } from "../support/payments.js";

const CBOR = "application/x402+cbor";
const routes = buildRouteTable({
  payTo: PAY_TO,
  network: "eip155:84532",
  maxTimeoutSeconds: 60,
  routes: {
    "GET /api/apy": { cbor: { currency: "USDC", amount: "1000", merchantPseudonym: "merchant:retry" } },
  },
});
const matchAs = (method: string) => routes.match(method, "/api/apy");

/** A paid CBOR POST to `/api/apy` with these framing headers. */
const retry = (framing: IncomingHttpHeaders) => ({
  method: "POST",
  headers: { "content-type": CBOR, "payment-signature": "eA==", ...framing },
});

describe("the CBOR POST→GET retry and the payment's content type (issue 20, item 1)", () => {
  it.each<[string, IncomingHttpHeaders, boolean]>([
    ["no framing", {}, true],
    ["Content-Length: 0", { "content-length": "0" }, true],
    ["Content-Length: 00", { "content-length": "00" }, true],
    ["Content-Length: 5", { "content-length": "5" }, false],
    ["Content-Length: 01", { "content-length": "01" }, false],
    ["Transfer-Encoding: chunked", { "transfer-encoding": "chunked" }, false],
    ["chunked and Content-Length: 0", { "transfer-encoding": "chunked", "content-length": "0" }, false],
  ])("%s: rewritten to GET only without a body (%s)", (_name, framing, rewritten) => {
    const req = retry(framing);
    const match = matchWithCborRetry(matchAs, req);
    expect(req.method).toBe(rewritten ? "GET" : "POST");
    expect(match.kind).toBe(rewritten ? "priced" : "free");
  });

  it("dropPaymentContentType never touches framing, and keeps the Content-Type of a request with a body (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.option(fc.stringMatching(/^[0-9]{1,4}$/), { nil: undefined }),
        fc.option(fc.constantFrom("chunked", "gzip, chunked"), { nil: undefined }),
        (length, encoding) => {
          const headers: IncomingHttpHeaders = { "content-type": CBOR };
          if (length !== undefined) headers["content-length"] = length;
          if (encoding !== undefined) headers["transfer-encoding"] = encoding;
          const before = { ...headers };
          dropPaymentContentType({ headers });
          expect(headers["content-length"]).toBe(before["content-length"]);
          expect(headers["transfer-encoding"]).toBe(before["transfer-encoding"]);
          const bodyless = (length === undefined || /^0+$/.test(length)) && encoding === undefined;
          expect(headers["content-type"]).toBe(bodyless ? undefined : CBOR);
        },
      ),
    );
  });
});
