import type { Request } from "express";
import type { RequestFacts } from "../paywall/RequestFacts.js";

/**
 * The facts of an Express request: `secure`, `protocol` and `ip` honour the app's `trust proxy`.
 * Prototype getters (one small object per request); Express computes these on each read, and a free
 * request never needs them.
 */
class ExpressRequestFacts implements RequestFacts {
  constructor(readonly raw: Request) {}

  get method(): string {
    return this.raw.method;
  }
  set method(method: string) {
    this.raw.method = method;
  }
  get url(): string {
    return this.raw.url;
  }
  set url(url: string) {
    this.raw.url = url;
  }
  get headers(): Request["headers"] {
    return this.raw.headers;
  }
  get secure(): boolean {
    return this.raw.secure;
  }
  get protocol(): "http" | "https" {
    return this.raw.protocol === "https" ? "https" : "http";
  }
  get clientAddress(): string {
    return this.raw.ip ?? this.raw.socket.remoteAddress ?? "";
  }
  get mountPath(): string {
    return this.raw.baseUrl;
  }
}

export function expressRequestFacts(req: Request): RequestFacts {
  return new ExpressRequestFacts(req);
}
