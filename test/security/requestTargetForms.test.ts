import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFacilitatorDouble, type FacilitatorDouble } from "../support/facilitatorDouble.js";
import { PAY_TO } from "../support/payments.js";
import { ENTRY_POINTS, startPricedEntryPoint, type PricedEntryPoint } from "./support/pricedEntryPoints.js";
import { rawHttp } from "./support/rawHttp.js";

/**
 * Issue 31, item 1: a request target that is not a path (`*` followed by `/../api`, `host:port`), which
 * Node accepts and `new URL(req.url, base)` or `express.static` resolve to a priced resource, is
 * `400 invalid_path` in every entry point; `OPTIONS *` is not refused.
 */
let facilitator: FacilitatorDouble;
const entryPoints: PricedEntryPoint[] = [];

beforeAll(async () => {
  facilitator = await startFacilitatorDouble();
  for (const name of ENTRY_POINTS)
    entryPoints.push(
      await startPricedEntryPoint(
        name,
        { "GET /api/secret": { price: "$0.01" }, "/files/*": { price: "$0.01" } },
        { facilitatorUrl: facilitator.url, payTo: PAY_TO },
      ),
    );
});

afterAll(async () => {
  await Promise.all(entryPoints.map((entryPoint) => entryPoint.stop()));
  await facilitator.close();
});

/** `@hono/node-server` (serving the Fetch adapters) refuses a target that starts neither with `/` nor a scheme itself. */
const RUNTIME_REFUSES_ASTERISK = new Set<string>(["x402Fetch()", "x402Hono()"]);
/** Fastify's router answers `400 Bad Request` to `*` followed by a path itself (`OPTIONS *` it passes on). */
const RUNTIME_REFUSES_ASTERISK_PATH = new Set<string>([...RUNTIME_REFUSES_ASTERISK, "x402Fastify"]);

describe.each(ENTRY_POINTS)("%s", (name) => {
  const entryPoint = () => entryPoints.find((candidate) => candidate.name === name) as PricedEntryPoint;

  it.each(["api/secret", "127.0.0.1:80", "http:/api/secret"])(
    "GET %s → 400 (Node's parser refuses it before any handler), nothing passed on",
    async (target) => {
      const before = entryPoint().hits();
      expect((await rawHttp(entryPoint().url, { method: "GET", target })).status).toBe(400);
      expect(entryPoint().hits()).toBe(before);
    },
  );

  it.each([
    ["*/../api/secret", "not_origin_form"],
    ["*/%2e%2e/api/secret", "not_origin_form"],
    ["*/../files/a", "not_origin_form"],
    ["http://user@h/api/secret", "not_origin_form"],
  ])("GET %s → 400 invalid_path (%s), nothing passed on", async (target, reason) => {
    const before = entryPoint().hits();
    const response = await rawHttp(entryPoint().url, { method: "GET", target });
    expect(response.status).toBe(400);
    expect(entryPoint().hits()).toBe(before);
    if (RUNTIME_REFUSES_ASTERISK_PATH.has(name) && target.startsWith("*")) {
      // Refused by @hono/node-server or Fastify's router before any handler: nothing priced is reached.
      expect(response.body).not.toContain("invalid_path");
      return;
    }
    const body = JSON.parse(response.body) as { error: string; details: { reason: string } };
    // The gateway refuses every target that is not a path before it is matched at all.
    expect(body.error).toBe("invalid_path");
    expect(name === "gateway" ? ["not_absolute", reason] : [reason]).toContain(body.details.reason);
    expect(entryPoint().hits()).toBe(before);
  });

  it.each([
    ["//evil/api/secret", "authority"],
    ["///evil/files/a", "authority"],
    // WHATWG removes the dot segment before it collapses `//`: `/api/secret/` there.
    ["/api/secret//..", "dot_segments"],
    // WHATWG keeps `%5c` inside its segment and resolves around it: `/api/secret` on host `h`.
    ["///h/x%5capi/../api/secret", "authority"],
  ])("GET %s → 400 invalid_path (%s): new URL(req.url, base) reads a host there", async (target, reason) => {
    const before = entryPoint().hits();
    const response = await rawHttp(entryPoint().url, { method: "GET", target });
    if (name === "gateway") {
      // The gateway forwards the normalised path (`/evil/api/secret`), which prices nothing, or refuses.
      expect([400, 404, 200]).toContain(response.status);
      return;
    }
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: "invalid_path", details: { reason } });
    expect(entryPoint().hits()).toBe(before);
  });

  it("OPTIONS * is not refused: the app answers it behind x402(), the gateway answers it itself", async () => {
    const response = await rawHttp(entryPoint().url, { method: "OPTIONS", target: "*" });
    // The paywall passes `OPTIONS *` on; @hono/node-server refuses it itself, before the Fetch adapters run.
    if (RUNTIME_REFUSES_ASTERISK.has(name)) return expect(response.status).toBe(400);
    expect(response.status).not.toBe(400);
    if (name === "gateway") {
      expect(response.status).toBe(204);
      expect(response.headers.allow).toContain("GET");
    }
  });

  it("an absolute-form target with a plain host is priced by its path", async () => {
    const response = await rawHttp(entryPoint().url, { method: "GET", target: "http://h/api/secret" });
    expect(response.status).toBe(name === "gateway" ? 400 : 402);
  });
});
