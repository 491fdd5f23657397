import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBase64Json } from "../../src/protocol/base64Json.js";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { startGatewayTarget, startX402Target, type BypassTarget } from "./support/bypassTargets.js";
import { rawHttp } from "./support/rawHttp.js";
import { spellings } from "./support/spellings.js";

interface Case {
  /** The issue item: `3` (issue 15) or `"20.9"`. */
  item: number | string;
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
  pricedAt?: string;
}
const corpus = JSON.parse(
  readFileSync(new URL("../fixtures/path-bypass-corpus.json", import.meta.url), "utf8"),
) as { priced: Record<string, string>; cases: Case[] };

let facilitator: FacilitatorDouble;
const targets: BypassTarget[] = [];

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  targets.push(
    await startX402Target(corpus.priced, facilitator.url),
    await startX402Target(corpus.priced, facilitator.url, "node:http"),
    await startGatewayTarget(corpus.priced, facilitator.url),
    await startX402Target(corpus.priced, facilitator.url, "fetch"),
    await startX402Target(corpus.priced, facilitator.url, "hono"),
    await startX402Target(corpus.priced, facilitator.url, "fastify"),
  );
});

afterAll(async () => {
  await Promise.all(targets.map((target) => target.stop()));
  await facilitator.close();
});

/** Send one unpaid request; it must not be served (no 2xx) and must not reach a priced handler. */
async function expectRefused(
  target: BypassTarget,
  request: Case,
): Promise<{ status: number; amount?: string }> {
  const before = target.hitCount();
  const response = await rawHttp(target.url, request);
  expect(response.status, `${request.method} ${request.target} → ${response.body}`).not.toBe(0);
  expect(response.status >= 200 && response.status < 300, `${request.method} ${request.target}`).toBe(false);
  expect(target.hitCount(), `${request.method} ${request.target} reached a priced handler`).toBe(before);
  const offer = response.headers["payment-required"];
  const amount = offer
    ? (decodeBase64Json(offer) as { accepts: { amount: string }[] }).accepts[0]?.amount
    : undefined;
  return { status: response.status, amount };
}

describe.each(["x402()", "x402Node()", "gateway", "x402Fetch()", "x402Hono()", "x402Fastify"])(
  "path bypass corpus against %s",
  (name) => {
    const target = () => targets.find((candidate) => candidate.name === name) as BypassTarget;

    it("control: the lenient upstream serves such spellings when nothing stands in front of it", async () => {
      const before = target().hitCount();
      const direct = await rawHttp(target().upstreamUrl, { method: "GET", target: "/api/%EF%BD%81py;x=1" });
      expect(direct.status).toBe(200);
      expect(target().hitCount()).toBe(before + 1);
    });

    it.each(
      corpus.cases.map((c) => [
        `${c.method} ${c.target}${c.headers ? " + " + Object.keys(c.headers)[0] : ""}`,
        c,
      ]),
    )("%s: no 2xx, no priced hit", async (_label, request) => {
      const { status, amount } = await expectRefused(target(), request as Case);
      const { pricedAt } = request as Case;
      if (pricedAt !== undefined) {
        expect(status).toBe(402);
        expect(amount).toBe(pricedAt);
      }
      expect(facilitator.count("settle")).toBe(0);
    });

    it("combined spellings of priced paths (fast-check): no 2xx, no priced hit", async () => {
      await fc.assert(
        fc.asyncProperty(spellings(), async ({ method, target: spelled }) => {
          await expectRefused(target(), { item: 0, method, target: spelled });
        }),
        { numRuns: 150 },
      );
    });
  },
);
