import { readFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
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
  const tls = backend.config.server.tls;
  let server: Server;
  try {
    server = tls
      ? createHttpsServer(
          { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
          backend.app,
        )
      : createHttpServer(backend.app);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    backend.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.address.includes(":") ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? "https" : "http"}://${shownHost}:${address.port}`,
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
