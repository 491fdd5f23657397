import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStakingBackend, type RunningBackend } from "./support/startStakingBackend.js";

let running: RunningBackend;
let dir: string;
let file: string;

/** Every row of every table: the whole state, to compare before and after a rejected request. */
function snapshot(): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all();
    return JSON.stringify(
      tables.map((t) => [t.name, db.prepare(`SELECT * FROM "${t.name}" ORDER BY 1, 2`).all()]),
    );
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "staking-bad-input-"));
  file = join(dir, "state.sqlite");
  running = await startStakingBackend({ config: { local: { dataFile: file } } });
  const seeded = await request(running.url).post("/api/stake").send({ userAddress: "0x1", amount: "1000" });
  expect(seeded.status).toBe(200);
});
afterAll(async () => {
  await running.close();
  rmSync(dir, { recursive: true, force: true });
});

const raw = (path: string, body: string, type = "application/json") =>
  request(running.url).post(path).set("Content-Type", type).send(body);

describe("bad input → 400 naming the field, state unchanged", () => {
  const cases: Array<{ name: string; path: string; body: string; code: string; field?: string }> = [
    { name: "malformed JSON", path: "/api/stake", body: '{"userAddress": "0x1",', code: "INVALID_JSON" },
    {
      name: "JSON that is an array",
      path: "/api/stake",
      body: "[1,2]",
      code: "INVALID_REQUEST",
      field: "body",
    },
    { name: "JSON that is a string", path: "/api/claim", body: '"0x1"', code: "INVALID_JSON" },
    { name: "empty body", path: "/api/claim", body: "", code: "INVALID_REQUEST", field: "userAddress" },
    {
      name: "missing userAddress",
      path: "/api/stake",
      body: '{"amount":"5"}',
      code: "INVALID_REQUEST",
      field: "userAddress",
    },
    {
      name: "amount as a number",
      path: "/api/stake",
      body: '{"userAddress":"0x9","amount":5}',
      code: "INVALID_REQUEST",
      field: "amount",
    },
    {
      name: "negative amount",
      path: "/api/stake",
      body: '{"userAddress":"0x9","amount":"-5"}',
      code: "INVALID_REQUEST",
      field: "amount",
    },
    {
      name: "decimal amount",
      path: "/api/stake",
      body: '{"userAddress":"0x9","amount":"1.5"}',
      code: "INVALID_REQUEST",
      field: "amount",
    },
    {
      name: "amount in exponent form",
      path: "/api/stake",
      body: '{"userAddress":"0x9","amount":"1e18"}',
      code: "INVALID_REQUEST",
      field: "amount",
    },
    {
      name: "amount above u128",
      path: "/api/stake",
      body: JSON.stringify({ userAddress: "0x9", amount: (2n ** 128n).toString() }),
      code: "INVALID_REQUEST",
      field: "amount",
    },
    {
      name: "huge amount",
      path: "/api/stake",
      body: JSON.stringify({ userAddress: "0x9", amount: "9".repeat(500) }),
      code: "INVALID_REQUEST",
      field: "amount",
    },
    {
      name: "address without 0x",
      path: "/api/stake",
      body: '{"userAddress":"123","amount":"5"}',
      code: "INVALID_REQUEST",
      field: "userAddress",
    },
    {
      name: "address with 65 hex digits",
      path: "/api/stake",
      body: JSON.stringify({ userAddress: "0x" + "1".repeat(65), amount: "5" }),
      code: "INVALID_REQUEST",
      field: "userAddress",
    },
    {
      name: "address above the field prime",
      path: "/api/stake",
      body: JSON.stringify({ userAddress: "0x" + "f".repeat(64), amount: "5" }),
      code: "INVALID_REQUEST",
      field: "userAddress",
    },
    {
      name: "address as a number",
      path: "/api/claim",
      body: '{"userAddress":1}',
      code: "INVALID_REQUEST",
      field: "userAddress",
    },
    {
      name: "bad tokenAddress",
      path: "/api/claim",
      body: '{"userAddress":"0x1","tokenAddress":"STRK"}',
      code: "INVALID_REQUEST",
      field: "tokenAddress",
    },
    {
      name: "unknown field",
      path: "/api/stake",
      body: '{"userAddress":"0x9","amount":"5","extra":true}',
      code: "INVALID_REQUEST",
      field: "extra",
    },
    {
      name: "__proto__ key",
      path: "/api/stake",
      body: '{"userAddress":"0x9","amount":"5","__proto__":{"isAdmin":true}}',
      code: "INVALID_REQUEST",
      field: "__proto__",
    },
    {
      name: "constructor key",
      path: "/api/claim",
      body: '{"userAddress":"0x1","constructor":{"prototype":{}}}',
      code: "INVALID_REQUEST",
      field: "constructor",
    },
    {
      name: "not JSON content type",
      path: "/api/stake",
      body: "userAddress=0x9&amount=5",
      code: "INVALID_REQUEST",
      field: "body",
    },
  ];

  for (const c of cases) {
    it(`${c.name} → 400 ${c.code}`, async () => {
      const before = snapshot();
      const res =
        c.name === "not JSON content type"
          ? await raw(c.path, c.body, "application/x-www-form-urlencoded")
          : await raw(c.path, c.body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe(c.code);
      if (c.field) {
        expect(res.body.error.details.issues.map((i: { field: string }) => i.field)).toContain(c.field);
        expect(res.body.error.message).toContain(c.field);
      }
      expect(snapshot()).toBe(before);
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });
  }

  it("a body over 64 KiB → 400 PAYLOAD_TOO_LARGE", async () => {
    const before = snapshot();
    const res = await raw(
      "/api/stake",
      JSON.stringify({ userAddress: "0x9", amount: "5", pad: "x".repeat(70_000) }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(res.body.error.details.limitBytes).toBe(65_536);
    expect(snapshot()).toBe(before);
  });

  it("an unsupported charset or content encoding → 400 INVALID_REQUEST", async () => {
    const before = snapshot();
    const charset = await raw(
      "/api/stake",
      '{"userAddress":"0x9","amount":"5"}',
      "application/json; charset=latin1",
    );
    expect(charset.status).toBe(400);
    expect(charset.body.error.code).toBe("INVALID_REQUEST");
    const encoded = await request(running.url)
      .post("/api/stake")
      .set("Content-Type", "application/json")
      .set("Content-Encoding", "br-unknown")
      .send('{"userAddress":"0x9","amount":"5"}');
    expect(encoded.status).toBe(400);
    expect(encoded.body.error.code).toBe("INVALID_REQUEST");
    expect(snapshot()).toBe(before);
  });

  it("bad path and query parameters → 400 naming them", async () => {
    const badUser = await request(running.url).get("/api/metrics/not-an-address");
    expect(badUser.status).toBe(400);
    expect(badUser.body.error.details.issues[0].field).toBe("userAddress");
    const twice = await request(running.url).get("/api/apy?tokenAddress=0x1&tokenAddress=0x2");
    expect(twice.status).toBe(400);
    expect(twice.body.error.details.issues[0].field).toBe("tokenAddress");
    const unknown = await request(running.url).get("/api/apy?token=0x1");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues[0].field).toBe("token");
  });
});
