import { createHash } from "node:crypto";
import type {
  ChainAdapter,
  ChainState,
  Effect,
  MemberView,
  OperationOutcome,
  OperationPlan,
  StateRequest,
  ValidatorView,
} from "../ChainAdapter.js";
import { formatFelt, parseFelt } from "../felt.js";
import type { StakingConfig } from "../stakingConfigSchema.js";
import type { TokenInfo } from "../tokens.js";
import { accrueRewards, type RewardRate } from "./accrueRewards.js";
import { LocalChainStore, type MemberRow } from "./LocalChainStore.js";

/** Balance changes count for rewards this many epochs after the operation. */
const BALANCE_DELAY_EPOCHS = 2;

export interface LocalAdapterOptions {
  config: StakingConfig["local"];
  tokens: readonly TokenInfo[];
  btcShareBps: number;
  /** Milliseconds since the Unix epoch; tests move it. */
  clock: () => number;
  /** Overrides `config.dataFile`. */
  dataFile?: string;
}

/**
 * A simulated validator with the delegation pool's rules, persisted in SQLite. Each operation is one
 * `BEGIN IMMEDIATE` transaction, so operations are serialized and a crash loses no acknowledged one.
 */
export class LocalAdapter implements ChainAdapter {
  readonly kind = "local";
  readonly tokens: readonly TokenInfo[];
  private readonly store: LocalChainStore;
  private readonly config: StakingConfig["local"];
  private readonly clock: () => number;
  private readonly btcShareBps: number;
  private readonly genesis: number;
  private readonly poolAddresses: Map<bigint, bigint>;

  constructor(options: LocalAdapterOptions) {
    this.config = options.config;
    this.tokens = options.tokens;
    this.clock = options.clock;
    this.btcShareBps = options.btcShareBps;
    this.store = new LocalChainStore({ file: options.dataFile ?? options.config.dataFile });
    this.genesis = Number(this.store.meta("genesis", String(this.nowSeconds())));
    const staker = parseFelt(this.config.stakerAddress);
    this.poolAddresses = new Map(
      this.tokens.map((token) => {
        const configured = this.config.poolAddresses[token.symbol];
        return [token.address, configured ? parseFelt(configured) : derivePoolAddress(staker, token.address)];
      }),
    );
  }

  async execute(
    _request: StateRequest,
    plan: (state: ChainState) => OperationPlan,
  ): Promise<OperationOutcome> {
    return this.store.transaction(() => {
      const now = this.nowSeconds();
      const epoch = this.epochAt(now);
      const state: ChainState = {
        now,
        validator: this.validatorView(epoch),
        member: (token, address) => this.settledMember(token, address, epoch),
        walletBalance: (address, token) => {
          this.welcome(address, now);
          return this.store.wallet(formatFelt(address), formatFelt(token.address));
        },
      };
      const decided = plan(state);
      for (const effect of decided.effects) this.apply(effect, epoch);
      const operationId = this.store.logOperation({
        operation: decided.operation,
        userAddress: formatFelt(decided.userAddress),
        token: formatFelt(decided.pool.token.address),
        amount: decided.amount,
        at: now,
      });
      const { pool, member } = decided.position;
      const token = pool.token;
      return {
        plan: decided,
        stakerAddress: state.validator.stakerAddress,
        operationId,
        position: {
          member: this.settledMember(token, member, epoch),
          walletBalance: this.store.wallet(formatFelt(member), formatFelt(token.address)),
          now,
        },
      };
    });
  }

  async read(_request: StateRequest): Promise<ChainState> {
    const now = this.nowSeconds();
    const epoch = this.epochAt(now);
    return {
      now,
      validator: this.validatorView(epoch),
      member: (token, address) => this.accruedMember(token, address, epoch),
      walletBalance: (address, token) => {
        const key = formatFelt(address);
        const faucet = this.store.isSeen(key) ? 0n : this.faucetAmount(token);
        return this.store.wallet(key, formatFelt(token.address)) + faucet;
      },
    };
  }

  /** Tokens of the pools where `address` is a member (for metrics without a token). */
  memberTokens(address: bigint): TokenInfo[] {
    const held = new Set(this.store.memberTokens(formatFelt(address)));
    return this.tokens.filter((t) => held.has(formatFelt(t.address)));
  }

  async yearlyMint(): Promise<bigint> {
    return BigInt(this.config.yearlyMint);
  }

  async networkStake(): Promise<{ strk: bigint; btc: bigint }> {
    return { strk: BigInt(this.config.networkStake.strk), btc: BigInt(this.config.networkStake.btc) };
  }

  close(): void {
    this.store.close();
  }

  private nowSeconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  private epochAt(now: number): number {
    return Math.max(0, Math.floor((now - this.genesis) / this.config.epochLengthSeconds));
  }

  private validatorView(epoch: number): ValidatorView {
    return {
      stakerAddress: parseFelt(this.config.stakerAddress),
      commissionBps: this.config.commissionBps,
      exiting: this.config.exiting,
      exitWaitWindowSeconds: this.config.exitWaitWindowSeconds,
      currentEpoch: epoch,
      epochLengthSeconds: this.config.epochLengthSeconds,
      ownStake: BigInt(this.config.ownStake),
      pools: this.tokens.map((token) => ({
        token,
        poolAddress: this.poolAddresses.get(token.address)!,
        totalDelegated: this.store.poolTotal(formatFelt(token.address)),
      })),
    };
  }

  private rate(token: TokenInfo): RewardRate {
    const btc = token.kind === "btc";
    return {
      yearlyMint: BigInt(this.config.yearlyMint),
      shareBps: BigInt(btc ? this.btcShareBps : 10_000 - this.btcShareBps),
      networkStake: BigInt(btc ? this.config.networkStake.btc : this.config.networkStake.strk),
      epochLengthSeconds: BigInt(this.config.epochLengthSeconds),
      commissionBps: BigInt(this.config.commissionBps),
      decimals: token.decimals,
    };
  }

  /** The member with rewards accrued up to `epoch`, computed without writing. */
  private accruedMember(token: TokenInfo, address: bigint, epoch: number): MemberView | null {
    const tokenKey = formatFelt(token.address);
    const addressKey = formatFelt(address);
    const row = this.store.member(tokenKey, addressKey);
    if (!row) return null;
    const earned = accrueRewards(
      this.store.checkpoints(tokenKey, addressKey),
      row.settledEpoch,
      epoch,
      this.rate(token),
    );
    return this.view({ ...row, unclaimedRewards: row.unclaimedRewards + earned });
  }

  /** The member with rewards accrued up to `epoch` written back (inside a transaction). */
  private settledMember(token: TokenInfo, address: bigint, epoch: number): MemberView | null {
    const tokenKey = formatFelt(token.address);
    const addressKey = formatFelt(address);
    const row = this.store.member(tokenKey, addressKey);
    if (!row) return null;
    if (row.settledEpoch < epoch) {
      const checkpoints = this.store.checkpoints(tokenKey, addressKey);
      row.unclaimedRewards += accrueRewards(checkpoints, row.settledEpoch, epoch, this.rate(token));
      row.settledEpoch = epoch;
      this.store.putMember(tokenKey, addressKey, row);
      const inForce = checkpoints.filter((c) => c.epoch <= epoch).at(-1);
      if (inForce) this.store.pruneCheckpoints(tokenKey, addressKey, inForce.epoch);
    }
    return this.view(row);
  }

  private view(row: MemberRow): MemberView {
    return {
      rewardAddress: parseFelt(row.rewardAddress),
      amount: row.amount,
      unclaimedRewards: row.unclaimedRewards,
      commissionBps: this.config.commissionBps,
      unpoolAmount: row.unpoolAmount,
      unpoolTime: row.unpoolTime,
    };
  }

  private faucetAmount(token: TokenInfo): bigint {
    if (!this.config.faucet.enabled) return 0n;
    return BigInt(this.config.faucet.amounts[token.symbol] ?? "0");
  }

  /** Fund a user seen for the first time from the faucet. */
  private welcome(address: bigint, now: number): void {
    const key = formatFelt(address);
    if (!this.store.markSeen(key, now)) return;
    for (const token of this.tokens) {
      const amount = this.faucetAmount(token);
      if (amount === 0n) continue;
      const tokenKey = formatFelt(token.address);
      this.store.setWallet(key, tokenKey, this.store.wallet(key, tokenKey) + amount);
      const supply = this.store.supply(tokenKey);
      this.store.setSupply(tokenKey, { ...supply, faucetTotal: supply.faucetTotal + amount });
    }
  }

  private apply(effect: Effect, epoch: number): void {
    const tokenKey = formatFelt(effect.token.address);
    switch (effect.type) {
      case "debit":
      case "credit": {
        const key = formatFelt(effect.address);
        const sign = effect.type === "debit" ? -1n : 1n;
        this.store.setWallet(key, tokenKey, this.store.wallet(key, tokenKey) + sign * effect.amount);
        return;
      }
      case "enter": {
        const key = formatFelt(effect.member);
        this.store.putMember(tokenKey, key, {
          rewardAddress: formatFelt(effect.rewardAddress),
          amount: effect.amount,
          unclaimedRewards: 0n,
          unpoolAmount: 0n,
          unpoolTime: null,
          settledEpoch: epoch,
        });
        this.store.putCheckpoint(tokenKey, key, epoch + BALANCE_DELAY_EPOCHS, effect.amount);
        this.store.setPoolTotal(tokenKey, this.store.poolTotal(tokenKey) + effect.amount);
        return;
      }
      case "setAmount": {
        const key = formatFelt(effect.member);
        const row = this.requireRow(tokenKey, key);
        this.store.putMember(tokenKey, key, { ...row, amount: effect.amount });
        this.store.putCheckpoint(tokenKey, key, epoch + BALANCE_DELAY_EPOCHS, effect.amount);
        this.store.setPoolTotal(tokenKey, this.store.poolTotal(tokenKey) - row.amount + effect.amount);
        return;
      }
      case "setUnpool": {
        const key = formatFelt(effect.member);
        const row = this.requireRow(tokenKey, key);
        this.store.putMember(tokenKey, key, { ...row, unpoolAmount: effect.amount, unpoolTime: effect.time });
        return;
      }
      case "takeRewards": {
        const key = formatFelt(effect.member);
        const row = this.requireRow(tokenKey, key);
        this.store.putMember(tokenKey, key, {
          ...row,
          unclaimedRewards: row.unclaimedRewards - effect.amount,
        });
        const strk = this.tokens.find((t) => t.kind === "strk");
        const strkKey = formatFelt(strk ? strk.address : effect.token.address);
        const supply = this.store.supply(strkKey);
        this.store.setSupply(strkKey, { ...supply, rewardsPaid: supply.rewardsPaid + effect.amount });
        return;
      }
      case "remove": {
        const key = formatFelt(effect.member);
        const row = this.requireRow(tokenKey, key);
        this.store.deleteMember(tokenKey, key);
        this.store.setPoolTotal(tokenKey, this.store.poolTotal(tokenKey) - row.amount);
        return;
      }
    }
  }

  private requireRow(token: string, address: string): MemberRow {
    const row = this.store.member(token, address);
    if (!row) throw new Error(`no member ${address} in pool of ${token}`);
    return row;
  }
}

/** A stable made-up pool contract address for a token without a configured one (62 hex digits, below the prime). */
function derivePoolAddress(staker: bigint, token: bigint): bigint {
  const digest = createHash("sha256")
    .update(`pool:${formatFelt(staker)}:${formatFelt(token)}`)
    .digest("hex");
  return BigInt("0x" + digest.slice(0, 62));
}
