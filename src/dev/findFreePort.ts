import { createServer } from "node:net";

/** A TCP port that was free on `host` a moment ago (bind to port 0, read it, close). */
export function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => (port === undefined ? reject(new Error("no port assigned")) : resolve(port)));
    });
  });
}
