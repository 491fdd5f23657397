import type { Request } from "express";
import type { RequestFacts } from "../paywall/request/RequestFacts.js";
import { NodeRequestFacts, type PeerReading } from "./nodeRequestFacts.js";

/** Express's reading of the peer: `protocol` and `ip` honour the app's `trust proxy` (computed on each read). */
const expressReading: PeerReading = {
  protocol: (req) => (req as Request).protocol,
  clientAddress: (req) => (req as Request).ip ?? req.socket.remoteAddress ?? "",
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
