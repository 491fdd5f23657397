import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Starts `server` on 127.0.0.1 (`port` 0: a free one) and returns its base URL. */
export async function listenOnLoopback(server: Server, port = 0): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${actual}`, port: actual };
}

/** Closes `server`, cutting its open connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
