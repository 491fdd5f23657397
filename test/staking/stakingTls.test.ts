import { request as httpsRequest } from "node:https";
import { describe, expect, it } from "vitest";
import { listenStakingBackend } from "../../src/staking/index.js";
import { selfSignedCert } from "../support/selfSignedCert.js";

describe("staking backend: server.tls (issue 15, item 15)", () => {
  it("speaks HTTPS with the same tls settings as the gateway (certFile, keyFile)", async () => {
    const { certFile, keyFile, cert } = await selfSignedCert();
    const running = await listenStakingBackend({
      config: {
        local: { dataFile: ":memory:" },
        server: { host: "127.0.0.1", port: 0, tls: { certFile, keyFile } },
      },
    });
    try {
      expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(`${running.url}/health`, { ca: cert }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(200);
      // Plain HTTP on the TLS port gets no staking answer.
      await expect(fetch(running.url.replace("https:", "http:") + "/health")).rejects.toThrow();
    } finally {
      running.server.closeAllConnections();
      await running.close();
    }
  });
});
