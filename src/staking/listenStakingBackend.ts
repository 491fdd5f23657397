import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createStakingBackend,
  type StakingBackend,
  type StakingBackendOptions,
} from "./createStakingBackend.js";

export interface ListeningStakingBackend {
  /** `http://host:port` actually bound (port 0 resolved). */
  url: string;
  port: number;
  backend: StakingBackend;
  server: Server;
  /** Stop accepting, let in-flight requests finish (idle connections are dropped), then close the adapter. */
  close(): Promise<void>;
}

/**
 * Create the staking backend and listen on `host:port` (defaults: the config's `server.host` and
 * `server.port`, 127.0.0.1:3001). For embedding it beside the gateway in one process.
 */
export async function listenStakingBackend(
  options: StakingBackendOptions & { host?: string; port?: number } = {},
): Promise<ListeningStakingBackend> {
  const backend = createStakingBackend(options);
  const host = options.host ?? backend.config.server.host;
  const port = options.port ?? backend.config.server.port;
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = backend.app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(s)));
    });
  } catch (error) {
    backend.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.address.includes(":") ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    backend,
    server,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          backend.close();
          resolve();
        });
        server.closeIdleConnections();
      })),
  };
}
