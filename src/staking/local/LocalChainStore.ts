import type Database from "better-sqlite3";
import type { BalanceCheckpoint } from "./accrueRewards.js";
import { openDurableDatabase } from "../../common/openDurableDatabase.js";

/** A pool member row; addresses and token are canonical felt text, amounts bigint. */
export interface MemberRow {
  rewardAddress: string;
  amount: bigint;
  unclaimedRewards: bigint;
  unpoolAmount: bigint;
  unpoolTime: number | null;
  settledEpoch: number;
}

interface RawMember {
  reward_address: string;
  amount: string;
  unclaimed_rewards: string;
  unpool_amount: string;
  unpool_time: number | null;
  settled_epoch: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (address TEXT PRIMARY KEY, first_seen INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wallets (address TEXT NOT NULL, token TEXT NOT NULL, balance TEXT NOT NULL,
  PRIMARY KEY (address, token));
CREATE TABLE IF NOT EXISTS members (token TEXT NOT NULL, address TEXT NOT NULL, reward_address TEXT NOT NULL,
  amount TEXT NOT NULL, unclaimed_rewards TEXT NOT NULL, unpool_amount TEXT NOT NULL, unpool_time INTEGER,
  settled_epoch INTEGER NOT NULL, PRIMARY KEY (token, address));
CREATE TABLE IF NOT EXISTS checkpoints (token TEXT NOT NULL, address TEXT NOT NULL, epoch INTEGER NOT NULL,
  amount TEXT NOT NULL, PRIMARY KEY (token, address, epoch));
CREATE TABLE IF NOT EXISTS pools (token TEXT PRIMARY KEY, total TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS supply (token TEXT PRIMARY KEY, faucet_total TEXT NOT NULL, rewards_paid TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS operations (id INTEGER PRIMARY KEY AUTOINCREMENT, operation TEXT NOT NULL,
  user_address TEXT NOT NULL, token TEXT NOT NULL, amount TEXT NOT NULL, at INTEGER NOT NULL);
`;

/**
 * The SQLite rows of the simulated chain (WAL, synchronous FULL). Amounts are stored as decimal text
 * so they stay exact; every method is synchronous and meant to run inside {@link LocalChainStore.transaction}.
 */
export class LocalChainStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(options: { file: string }) {
    this.db = openDurableDatabase(options.file, SCHEMA, "the staking backend's local adapter");
    const db = this.db;
    this.statements = {
      getMeta: db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?"),
      setMeta: db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)"),
      getUser: db.prepare<[string], { address: string }>("SELECT address FROM users WHERE address = ?"),
      addUser: db.prepare("INSERT INTO users (address, first_seen) VALUES (?, ?)"),
      getWallet: db.prepare<[string, string], { balance: string }>(
        "SELECT balance FROM wallets WHERE address = ? AND token = ?",
      ),
      setWallet: db.prepare(
        "INSERT INTO wallets (address, token, balance) VALUES (?, ?, ?) " +
          "ON CONFLICT (address, token) DO UPDATE SET balance = excluded.balance",
      ),
      getMember: db.prepare<[string, string], RawMember>(
        "SELECT * FROM members WHERE token = ? AND address = ?",
      ),
      memberTokens: db.prepare<[string], { token: string }>("SELECT token FROM members WHERE address = ?"),
      putMember: db.prepare(
        "INSERT INTO members (token, address, reward_address, amount, unclaimed_rewards, unpool_amount, " +
          "unpool_time, settled_epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (token, address) DO UPDATE SET " +
          "reward_address = excluded.reward_address, amount = excluded.amount, " +
          "unclaimed_rewards = excluded.unclaimed_rewards, unpool_amount = excluded.unpool_amount, " +
          "unpool_time = excluded.unpool_time, settled_epoch = excluded.settled_epoch",
      ),
      deleteMember: db.prepare("DELETE FROM members WHERE token = ? AND address = ?"),
      getCheckpoints: db.prepare<[string, string], { epoch: number; amount: string }>(
        "SELECT epoch, amount FROM checkpoints WHERE token = ? AND address = ? ORDER BY epoch",
      ),
      putCheckpoint: db.prepare(
        "INSERT OR REPLACE INTO checkpoints (token, address, epoch, amount) VALUES (?, ?, ?, ?)",
      ),
      pruneCheckpoints: db.prepare("DELETE FROM checkpoints WHERE token = ? AND address = ? AND epoch < ?"),
      deleteCheckpoints: db.prepare("DELETE FROM checkpoints WHERE token = ? AND address = ?"),
      getPoolTotal: db.prepare<[string], { total: string }>("SELECT total FROM pools WHERE token = ?"),
      setPoolTotal: db.prepare(
        "INSERT INTO pools (token, total) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET total = excluded.total",
      ),
      getSupply: db.prepare<[string], { faucet_total: string; rewards_paid: string }>(
        "SELECT faucet_total, rewards_paid FROM supply WHERE token = ?",
      ),
      setSupply: db.prepare(
        "INSERT INTO supply (token, faucet_total, rewards_paid) VALUES (?, ?, ?) ON CONFLICT (token) DO UPDATE " +
          "SET faucet_total = excluded.faucet_total, rewards_paid = excluded.rewards_paid",
      ),
      logOperation: db.prepare(
        "INSERT INTO operations (operation, user_address, token, amount, at) VALUES (?, ?, ?, ?, ?)",
      ),
    };
  }

  /** Run `fn` in one `BEGIN IMMEDIATE` transaction: all of it is durable, or none of it. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** A meta value, written once with `initial` the first time it is asked for. */
  meta(key: string, initial: string): string {
    this.statements.setMeta.run(key, initial);
    return this.statements.getMeta.get(key)!.value;
  }

  /** Records the user; true the first time it is seen. */
  markSeen(address: string, now: number): boolean {
    if (this.statements.getUser.get(address)) return false;
    this.statements.addUser.run(address, now);
    return true;
  }

  isSeen(address: string): boolean {
    return this.statements.getUser.get(address) !== undefined;
  }

  wallet(address: string, token: string): bigint {
    const row = this.statements.getWallet.get(address, token);
    return row ? BigInt(row.balance) : 0n;
  }

  setWallet(address: string, token: string, balance: bigint): void {
    if (balance < 0n) throw new Error(`wallet ${address} would go negative`);
    this.statements.setWallet.run(address, token, balance.toString());
  }

  member(token: string, address: string): MemberRow | null {
    const row = this.statements.getMember.get(token, address);
    if (!row) return null;
    return {
      rewardAddress: row.reward_address,
      amount: BigInt(row.amount),
      unclaimedRewards: BigInt(row.unclaimed_rewards),
      unpoolAmount: BigInt(row.unpool_amount),
      unpoolTime: row.unpool_time,
      settledEpoch: row.settled_epoch,
    };
  }

  /** Tokens of the pools where `address` is a member. */
  memberTokens(address: string): string[] {
    return this.statements.memberTokens.all(address).map((r) => r.token);
  }

  putMember(token: string, address: string, row: MemberRow): void {
    if (row.amount < 0n || row.unclaimedRewards < 0n || row.unpoolAmount < 0n) {
      throw new Error(`member ${address} would go negative`);
    }
    this.statements.putMember.run(
      token,
      address,
      row.rewardAddress,
      row.amount.toString(),
      row.unclaimedRewards.toString(),
      row.unpoolAmount.toString(),
      row.unpoolTime,
      row.settledEpoch,
    );
  }

  deleteMember(token: string, address: string): void {
    this.statements.deleteMember.run(token, address);
    this.statements.deleteCheckpoints.run(token, address);
  }

  checkpoints(token: string, address: string): BalanceCheckpoint[] {
    return this.statements.getCheckpoints
      .all(token, address)
      .map((r) => ({ epoch: r.epoch, amount: BigInt(r.amount) }));
  }

  putCheckpoint(token: string, address: string, epoch: number, amount: bigint): void {
    this.statements.putCheckpoint.run(token, address, epoch, amount.toString());
  }

  /** Drop checkpoints before `epoch` (the caller keeps the one in force at `epoch`). */
  pruneCheckpoints(token: string, address: string, epoch: number): void {
    this.statements.pruneCheckpoints.run(token, address, epoch);
  }

  poolTotal(token: string): bigint {
    const row = this.statements.getPoolTotal.get(token);
    return row ? BigInt(row.total) : 0n;
  }

  setPoolTotal(token: string, total: bigint): void {
    this.statements.setPoolTotal.run(token, total.toString());
  }

  supply(token: string): { faucetTotal: bigint; rewardsPaid: bigint } {
    const row = this.statements.getSupply.get(token);
    return row
      ? { faucetTotal: BigInt(row.faucet_total), rewardsPaid: BigInt(row.rewards_paid) }
      : { faucetTotal: 0n, rewardsPaid: 0n };
  }

  setSupply(token: string, supply: { faucetTotal: bigint; rewardsPaid: bigint }): void {
    this.statements.setSupply.run(token, supply.faucetTotal.toString(), supply.rewardsPaid.toString());
  }

  logOperation(entry: {
    operation: string;
    userAddress: string;
    token: string;
    amount: bigint;
    at: number;
  }): number {
    const result = this.statements.logOperation.run(
      entry.operation,
      entry.userAddress,
      entry.token,
      entry.amount.toString(),
      entry.at,
    );
    return Number(result.lastInsertRowid);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
