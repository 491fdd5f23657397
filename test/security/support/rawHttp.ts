import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Send one request exactly as written (request target, header names and values untouched, as
 * `curl --request-target` would) and read the answer until the server closes the connection.
 */
export function rawHttp(
  url: string,
  request: { method: string; target: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const headers: Record<string, string> = {
    Host: `${hostname}:${port}`,
    Connection: "close",
    ...request.headers,
  };
  if (request.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(request.body));
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(parseResponse(Buffer.concat(chunks).toString("latin1"))));
    socket.write(`${head}\r\n\r\n${request.body ?? ""}`);
  });
}

function parseResponse(text: string): RawResponse {
  const end = text.indexOf("\r\n\r\n");
  const [statusLine = "", ...lines] = (end === -1 ? text : text.slice(0, end)).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end === -1 ? "" : text.slice(end + 4);
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = unchunk(body);
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body };
}

function unchunk(body: string): string {
  let out = "";
  let rest = body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    if (line === -1) return out;
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 4 + size);
  }
}
