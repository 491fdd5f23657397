import type { RequestListener, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Close at once, open connections included. */
  close(): Promise<void>;
}

/** Serve `app` on 127.0.0.1 on a free port. */
export async function listenOnLoopback(app: RequestListener): Promise<LoopbackServer> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
