import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { InjectedFault } from "./injectedFaults.js";

export interface FaultyFront {
  /** Base URL the run's clients use instead of the gateway's. */
  url: string;
  close(): Promise<void>;
}

export interface FaultyFrontOptions {
  gatewayUrl: string;
  upstreamUrl: string;
  faults: ReadonlySet<InjectedFault>;
}

/** An answer, read whole. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Headers about one connection's framing: rewritten here, not passed on. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);
/** Room for the soak's oversized payment header, which the gateway itself must refuse. */
const MAX_HEADER_BYTES = 256 * 1024;

/**
 * A proxy on 127.0.0.1:0 in front of the gateway that breaks its promises on purpose, as `faults` say
 * ({@link InjectedFault}): `double-serve` fetches a served paid path from the upstream once more, and
 * serves a payment served once again, straight from the upstream; `wrong-code` turns a refusal's code
 * into `internal_error`, its status and headers kept. Only the scripts' own tests put it there.
 */
export async function startFaultyFront(options: FaultyFrontOptions): Promise<FaultyFront> {
  const gateway = new URL(options.gatewayUrl);
  const upstream = (path: string) => fromUpstream(`${options.upstreamUrl}${path}`);
  /** Payment headers the gateway served: `double-serve` serves them again. */
  const served = new Set<string>();
  const answer = async (path: string, req: IncomingMessage, body: Buffer): Promise<Answer> => {
    const payment = req.headers["payment-signature"];
    if (!options.faults.has("double-serve") || !path.startsWith("/paid/") || typeof payment !== "string")
      return forward(gateway, req.method ?? "GET", path, req.headers, body);
    if (served.has(payment)) return upstream(path);
    const answered = await forward(gateway, req.method ?? "GET", path, req.headers, body);
    if (answered.status === 200) {
      served.add(payment);
      await upstream(path);
    }
    return answered;
  };
  const server: Server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      answer(req.url ?? "/", req, Buffer.concat(chunks))
        .then(({ status, headers, body }) => {
          const sent = options.faults.has("wrong-code") && status >= 400 ? wrongCode(body) : body;
          res.writeHead(status, { ...headers, "content-length": sent.length }).end(sent);
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A GET of `url` (the upstream), answered as it came. */
async function fromUpstream(
  url: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const response = await fetch(url);
  return {
    status: response.status,
    headers: { "content-type": response.headers.get("content-type") ?? "application/json" },
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** One request to the gateway, its path kept byte for byte (an encoded `/` must reach it encoded). */
function forward(
  gateway: URL,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: gateway.hostname, port: gateway.port, method, path, headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 502,
            headers: Object.fromEntries(
              Object.entries(response.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
            ),
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** A JSON error body with its code replaced by one no refusal of the runs should carry. */
function wrongCode(body: Buffer): Buffer {
  try {
    const json = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    return Buffer.from(JSON.stringify({ ...json, error: "internal_error" }));
  } catch {
    return body;
  }
}
