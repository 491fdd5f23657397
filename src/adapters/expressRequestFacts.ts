import type { Request } from "express";
import type { RequestFacts } from "../paywall/request/RequestFacts.js";
import { NodeRequestFacts, socketReading, type PeerReading } from "./nodeRequestFacts.js";

/**
 * Whether the app trusts no proxy: Express's default `trust proxy` (`false`), where its `protocol` and `ip`
 * are the socket's, worked out through proxy-addr each time; then read from the socket, as Express would.
 */
const trustsNoProxy = (req: Request): boolean => req.app.get("trust proxy") === false;

/** Express's reading of the peer: `protocol` and `ip` honour the app's `trust proxy`. */
const expressReading: PeerReading = {
  protocol: (req) =>
    trustsNoProxy(req as Request) ? socketReading.protocol(req) : (req as Request).protocol,
  clientAddress: (req) =>
    trustsNoProxy(req as Request)
      ? socketReading.clientAddress(req)
      : ((req as Request).ip ?? req.socket.remoteAddress ?? ""),
};

/** A Node request's facts, mounted where Express routed it. */
class ExpressRequestFacts extends NodeRequestFacts {
  override get mountPath(): string {
    return (this.raw as Request).baseUrl;
  }
}

/** The facts of an Express request: `secure`, `protocol` and `ip` honour the app's `trust proxy`. */
export function expressRequestFacts(req: Request): RequestFacts {
  return new ExpressRequestFacts(req, expressReading);
}
