import type { Request } from "express";
import type { RequestFacts } from "./flow/RequestFacts.js";

/** The facts of an Express request: `secure`, `protocol` and `ip` honour the app's `trust proxy`. */
export function expressRequestFacts(req: Request): RequestFacts {
  return {
    get method() {
      return req.method;
    },
    set method(method: string) {
      req.method = method;
    },
    get url() {
      return req.url;
    },
    set url(url: string) {
      req.url = url;
    },
    headers: req.headers,
    // Getters: Express computes these on each read, and a free request never needs them.
    get secure() {
      return req.secure;
    },
    get protocol() {
      return req.protocol === "https" ? "https" : "http";
    },
    get clientAddress() {
      return req.ip ?? req.socket.remoteAddress ?? "";
    },
    get mountPath() {
      return req.baseUrl;
    },
    raw: req,
  };
}
