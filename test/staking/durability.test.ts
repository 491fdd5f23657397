import Database from "better-sqlite3";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const USERS = Array.from({ length: 8 }, (_, i) => "0x" + (0xd00d0 + i).toString(16));
const ROUNDS = 4;

interface Ack {
  operationId: number;
  operation: string;
  user: string;
  token: string;
  position: { stakedAmount?: string; unpoolAmount?: string; walletBalance: string; isMember: boolean };
}

const dir = mkdtempSync(join(tmpdir(), "staking-durability-"));
const dataFile = join(dir, "state.sqlite");
const configFile = join(dir, "config.json");
// Short epochs and no exit window, so that rewards accrue, claims pay and exits complete within the test.
writeFileSync(configFile, JSON.stringify({ local: { epochLengthSeconds: 1, exitWaitWindowSeconds: 0 } }));
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Start the CLI as a child process and resolve with the URL it prints. */
function startChild(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli/staking-backend.ts",
      "--port",
      "0",
      "--data",
      dataFile,
      "--config",
      configFile,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "warn" } },
  );
  children.add(child);
  child.on("exit", () => children.delete(child));
  return new Promise((resolvePromise, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`backend did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1]! });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`backend exited with ${code}:\n${output}`));
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once("exit", (code) => r(code)));
}

function randomOperation(user: string, random: () => number): { path: string; body: object } {
  const amount = String(1 + Math.floor(random() * 1_000_000));
  const pick = Math.floor(random() * 7);
  switch (pick) {
    case 0:
      return { path: "/api/stake", body: { userAddress: user, amount } };
    case 1:
    case 2:
      return { path: "/api/add-to-pool", body: { userAddress: user, amount } };
    case 3:
      return { path: "/api/unstake/intent", body: { userAddress: user, amount } };
    case 4:
      return { path: "/api/unstake/action", body: { userAddress: user } };
    case 5:
      return { path: "/api/claim", body: { userAddress: user } };
    default:
      return { path: "/api/restake", body: { userAddress: user } };
  }
}

/** Each user fires operations one after another until the backend dies; acknowledged ones are recorded. */
async function fire(url: string, acks: Ack[], onAck: () => void): Promise<number> {
  let seed = Math.floor(Math.random() * 2 ** 31);
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  let sent = 0;
  await Promise.all(
    USERS.map(async (user) => {
      for (;;) {
        const op = randomOperation(user, random);
        let res: Response;
        try {
          sent++;
          res = await fetch(url + op.path, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(op.body),
          });
        } catch {
          return; // the backend was killed
        }
        let body: { success: boolean; data?: Record<string, unknown> };
        try {
          body = (await res.json()) as typeof body;
        } catch {
          return; // killed while answering
        }
        if (res.status === 200 && body.data) {
          const data = body.data as Record<string, unknown> & {
            position: Ack["position"] & { token?: { address: string } };
          };
          acks.push({
            operationId: data.operationId as number,
            operation: data.operation as string,
            user,
            token: (data.position.token?.address ?? "") as string,
            position: data.position,
          });
          onAck();
        } else {
          expect([400, 404, 409]).toContain(res.status);
        }
      }
    }),
  );
  return sent;
}

function audit(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const sum = (sql: string, token: string) =>
      db
        .prepare<[string], { v: string }>(sql)
        .all(token)
        .reduce((total, row) => total + BigInt(row.v), 0n);
    const tokens = db.prepare<[], { token: string }>("SELECT token FROM supply").all();
    const balances = tokens.map(({ token }) => {
      const supply = db
        .prepare<[string], { faucet_total: string; rewards_paid: string }>(
          "SELECT * FROM supply WHERE token = ?",
        )
        .get(token)!;
      return {
        token,
        held:
          sum("SELECT balance AS v FROM wallets WHERE token = ?", token) +
          sum("SELECT amount AS v FROM members WHERE token = ?", token) +
          sum("SELECT unpool_amount AS v FROM members WHERE token = ?", token),
        issued: BigInt(supply.faucet_total) + BigInt(supply.rewards_paid),
        pool: BigInt(
          db.prepare<[string], { total: string }>("SELECT total FROM pools WHERE token = ?").get(token)
            ?.total ?? "0",
        ),
        members: sum("SELECT amount AS v FROM members WHERE token = ?", token),
      };
    });
    const operations = db
      .prepare<[], { id: number; operation: string; user_address: string }>(
        "SELECT id, operation, user_address FROM operations",
      )
      .all();
    return { balances, operations };
  } finally {
    db.close();
  }
}

describe("durability of the local adapter", () => {
  it(`kill -9 at random moments (${ROUNDS} rounds): every acknowledged operation survives and balances add up`, async () => {
    const acks: Ack[] = [];
    const killPoints: number[] = [];
    let sent = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { child, url } = await startChild();
      const killAfter = acks.length + 10 + Math.floor(Math.random() * 80);
      killPoints.push(killAfter);
      const firing = fire(url, acks, () => {
        if (acks.length >= killAfter && child.exitCode === null) child.kill("SIGKILL");
      });
      await exited(child);
      sent += await firing;
    }

    const { child, url } = await startChild();
    const lastAck = new Map<string, Ack>();
    for (const ack of acks) lastAck.set(ack.user, ack);
    const { operations: logged } = audit(dataFile);
    const lastLogged = new Map<string, number>();
    for (const op of logged) lastLogged.set(op.user_address, op.id);

    // Positions the restarted backend reports match the last acknowledged answer, unless an
    // operation committed after it (in flight when killed, never acknowledged).
    let compared = 0;
    for (const [user, ack] of lastAck) {
      const felt = "0x" + BigInt(user).toString(16).padStart(64, "0");
      if (lastLogged.get(felt) !== ack.operationId || !ack.token) continue;
      const res = await fetch(`${url}/api/metrics/${user}?tokenAddress=${ack.token}`);
      const data = (
        (await res.json()) as {
          data: { positions: Array<Record<string, string>>; wallet: Array<{ balance: string }> };
        }
      ).data;
      const position = data.positions[0];
      if (ack.position.isMember) {
        expect(position?.stakedAmount).toBe(ack.position.stakedAmount);
        expect(position?.unpoolAmount).toBe(ack.position.unpoolAmount);
      } else {
        expect(position).toBeUndefined();
      }
      expect(data.wallet[0]!.balance).toBe(ack.position.walletBalance);
      compared++;
    }
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(0);

    const { balances, operations } = audit(dataFile);
    const byId = new Map(operations.map((op) => [op.id, op]));
    for (const ack of acks) {
      const op = byId.get(ack.operationId);
      expect(op, `acknowledged operation ${ack.operationId} lost`).toBeDefined();
      expect(op!.operation).toBe(ack.operation);
      expect(BigInt(op!.user_address)).toBe(BigInt(ack.user));
    }
    for (const b of balances) {
      expect(b.held, `token ${b.token}: wallets + stake + pending exits = faucet + rewards paid`).toBe(
        b.issued,
      );
      expect(b.pool).toBe(b.members);
    }
    expect(acks.length).toBeGreaterThanOrEqual(30);
    expect(compared).toBeGreaterThan(0);
    console.info(
      `durability: ${sent} operations sent, ${acks.length} acknowledged, ${operations.length} committed, ` +
        `kill -9 after ${killPoints.join(", ")} acks, ${compared} positions compared`,
    );
  }, 90_000);
});
