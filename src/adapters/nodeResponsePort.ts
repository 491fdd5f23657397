import type { ServerResponse } from "node:http";
import type {
  HeaderValue,
  HeldResponse,
  ResponsePort,
  WrittenHeaders,
} from "../paywall/responses/ResponsePort.js";
import { holdNodeResponse } from "./holdNodeResponse.js";

/** Node's `ServerResponse` as the flow's response port: writes go straight to it, holding swaps its methods. */
class NodeResponsePort implements ResponsePort {
  constructor(readonly res: ServerResponse) {}

  /** Express's `res.locals.x402Usage` (a metered handler's report); undefined on plain node:http. */
  reportedUsage(): unknown {
    return (this.res as ServerResponse & { locals?: { x402Usage?: unknown } }).locals?.x402Usage;
  }

  get statusCode(): number {
    return this.res.statusCode;
  }
  set statusCode(status: number) {
    this.res.statusCode = status;
  }
  get headersSent(): boolean {
    return this.res.headersSent;
  }
  get req(): ServerResponse["req"] | undefined {
    return this.res.req;
  }
  getHeader(name: string): HeaderValue | undefined {
    return this.res.getHeader(name);
  }
  setHeader(name: string, value: HeaderValue): void {
    this.res.setHeader(name, value);
  }
  writeHead(status: number, headers: WrittenHeaders): void {
    this.res.writeHead(status, headers);
  }
  end(body?: string | Uint8Array): void {
    if (body === undefined) this.res.end();
    else this.res.end(body);
  }
  hold(maxBytes: number): HeldResponse {
    return holdNodeResponse(this.res, maxBytes);
  }
  gone(): boolean {
    // Node sets `destroyed` before a response emits 'close': no listener needed.
    return this.res.destroyed || (this.res.req?.socket.destroyed ?? false);
  }
}

/** The flow's response port over Node's response. */
export function nodeResponsePort(res: ServerResponse): ResponsePort {
  return new NodeResponsePort(res);
}
