import type { IncomingHttpHeaders } from "node:http";

/** Whether the request's framing announces a body (`Content-Length` above 0, or any `Transfer-Encoding`). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers["content-length"];
  return (length !== undefined && !/^0+$/.test(length)) || headers["transfer-encoding"] !== undefined;
}
