import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { parseConfig } from "../../src/config/loadConfig.js";
import { createGateway, type RunningGateway } from "../../src/gateway/createGateway.js";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";

/** The gateway's metered route, from YAML: the upstream reports its cost in a header the config names. */
const account = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7690d6");
let facilitator: FacilitatorDouble;
let upstream: Server;
let gateway: RunningGateway;

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  facilitator.kinds.push({ x402Version: 2, scheme: "upto", network: "eip155:84532" });
  facilitator.verify = () => ({ isValid: true, payer: account.address });
  facilitator.settle = (body) => ({
    success: true,
    transaction: `0x${"cd".repeat(32)}`,
    network: "eip155:84532",
    payer: account.address,
    amount: (body as { paymentRequirements: { amount: string } }).paymentRequirements.amount,
  });
  upstream = createServer((req, res) => {
    res.setHeader("X-Upstream-Cost", req.url === "/complete" ? "777" : "0");
    res.setHeader("Content-Type", "application/json");
    res.end('{"completion":"ok"}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const yaml = `
listen: { host: 127.0.0.1, port: 0 }
facilitator:
  url: ${facilitator.url}
payTo: "0x2222222222222222222222222222222222222222"
network: eip155:84532
upstreams:
  - url: http://127.0.0.1:${(upstream.address() as AddressInfo).port}
logging: { level: silent }
routes:
  GET /complete:
    scheme: upto
    price:
      amount: "10000"
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
      extra: { name: USDC, version: "2", assetTransferMethod: permit2, facilitatorAddress: "0x1111111111111111111111111111111111111111" }
    usageHeader: X-Upstream-Cost
  GET /idle:
    scheme: upto
    price:
      amount: "10000"
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
      extra: { name: USDC, version: "2", assetTransferMethod: permit2, facilitatorAddress: "0x1111111111111111111111111111111111111111" }
    usageHeader: X-Upstream-Cost
`;
  gateway = await createGateway(parseConfig(yaml, { file: "metered.yaml", env: {} })).listen();
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => upstream.close(resolve));
  await facilitator.close();
});

const pay = () =>
  wrapFetchWithPayment(
    fetch,
    new x402HTTPClient(new x402Client().register("eip155:*", new UptoEvmScheme(account))),
  );

describe("x402-gateway serve: a metered upto route", () => {
  it("settles what the upstream's header reports, and nothing for an idle answer", async () => {
    const settles = () =>
      facilitator.calls
        .filter((call) => call.endpoint === "settle")
        .map((call) => (call.body as { paymentRequirements: { amount: string } }).paymentRequirements.amount);
    const used = await pay()(`${gateway.url}/complete`);
    expect(used.status).toBe(200);
    expect(
      (decodeBase64Json(used.headers.get("payment-response") as string) as { amount: string }).amount,
    ).toBe("777");
    const idle = await pay()(`${gateway.url}/idle`);
    expect(idle.status).toBe(200);
    expect(
      (decodeBase64Json(idle.headers.get("payment-response") as string) as { amount: string }).amount,
    ).toBe("0");
    expect(settles()).toEqual(["777"]);
  });
});
