import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpFacilitator } from "../../src/facilitator/HttpFacilitator.js";
import { readLimited, ReplyTooLargeError } from "../../src/facilitator/readLimited.js";
import { GatewayError } from "../../src/protocol/errors.js";
import { evmPayment, usdcRequirements } from "../support/payments.js";

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A server that streams `count` copies of `chunk` without a Content-Length. */
async function streaming(chunk: string, count: number): Promise<{ url: string; written: () => number }> {
  let written = 0;
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    let sent = 0;
    const push = () => {
      while (sent < count) {
        sent += 1;
        written += Buffer.byteLength(chunk);
        if (!res.write(chunk)) return void res.once("drain", push);
      }
      res.end();
    };
    push();
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written: () => written };
}

describe("readLimited", () => {
  it("counts bytes, not UTF-16 characters: 10 three-byte characters are 30 bytes", async () => {
    const { url } = await streaming("€", 10);
    await expect(readLimited(await fetch(url), 29)).rejects.toBeInstanceOf(ReplyTooLargeError);
    const ok = await streaming("€", 10);
    expect(new TextDecoder().decode(await readLimited(await fetch(ok.url), 30))).toBe("€".repeat(10));
  });

  it("stops reading an endless reply soon after the limit instead of buffering it all", async () => {
    const { url, written } = await streaming("x".repeat(16 * 1024), 100_000); // 1.6 GB offered
    await expect(readLimited(await fetch(url), 64 * 1024)).rejects.toThrow("reply over 65536 bytes");
    expect(written()).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    const response = new Response("x".repeat(10), { headers: { "content-length": "10" } });
    await expect(readLimited(response, 9)).rejects.toBeInstanceOf(ReplyTooLargeError);
  });

  it("HttpFacilitator: a facilitator that answers /settle endlessly is a malformed reply (502 facilitator_error), not 'unreachable'", async () => {
    const { url } = await streaming("x".repeat(16 * 1024), 100_000);
    const facilitator = new HttpFacilitator({ url });
    const requirements = usdcRequirements("1000");
    const error = await facilitator.settle(evmPayment(requirements), requirements).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GatewayError);
    // "malformed" keeps the outcome unknown (resolved on chain); "unreachable" would release the payment.
    expect([(error as GatewayError).code, (error as GatewayError).details.reason]).toEqual([
      "facilitator_error",
      "malformed",
    ]);
  });
});
