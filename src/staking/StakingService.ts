import type {
  ChainAdapter,
  ChainState,
  MemberView,
  OperationOutcome,
  OperationPlan,
  PoolView,
} from "./ChainAdapter.js";
import { UnknownTokenError } from "./errors.js";
import { formatFelt, parseFelt } from "./felt.js";
import { planAddToPool } from "./plans/planAddToPool.js";
import { planClaim } from "./plans/planClaim.js";
import { planRestake } from "./plans/planRestake.js";
import { planStake } from "./plans/planStake.js";
import { planUnstakeAction } from "./plans/planUnstakeAction.js";
import { planUnstakeIntent } from "./plans/planUnstakeIntent.js";
import type { AddToPoolBody, MemberBody, StakeBody, UnstakeIntentBody } from "./requestSchemas.js";
import { computeApr } from "./computeApr.js";
import { computeApy } from "./computeApy.js";
import { SECONDS_PER_YEAR } from "./local/accrueRewards.js";

const DAYS_PER_YEAR = 365;
import type { TokenInfo } from "./tokens.js";

export interface StakingServiceOptions {
  adapter: ChainAdapter;
  /** USD prices (decimal strings) for the BTC APR. */
  prices: { strkUsd: string; btcUsd: string };
  /** Share of the mint for BTC stakers, in basis points. */
  btcShareBps: number;
}

/**
 * The 11 operations over one {@link ChainAdapter}: the same rules, answers and errors for the local
 * simulator and for Starknet. Inputs are already validated by the request schemas.
 */
export class StakingService {
  readonly adapter: ChainAdapter;
  private readonly options: StakingServiceOptions;
  private readonly strk: TokenInfo;

  constructor(options: StakingServiceOptions) {
    this.options = options;
    this.adapter = options.adapter;
    const strk = options.adapter.tokens.find((t) => t.kind === "strk");
    if (!strk) throw new Error("the token list has no STRK");
    this.strk = strk;
  }

  async stake(body: StakeBody): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(body.userAddress);
    const token = this.token(body.tokenAddress);
    const rewardAddress = body.rewardAddress === undefined ? userAddress : parseFelt(body.rewardAddress);
    const amount = BigInt(body.amount);
    return this.run([{ token, address: userAddress }], userAddress, token, (state) =>
      planStake(state, { userAddress, token, amount, rewardAddress }),
    );
  }

  async addToPool(body: AddToPoolBody): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(body.userAddress);
    const token = this.token(body.tokenAddress);
    const poolMember = body.poolMember === undefined ? userAddress : parseFelt(body.poolMember);
    const amount = BigInt(body.amount);
    return this.run([{ token, address: poolMember }], userAddress, token, (state) =>
      planAddToPool(state, { userAddress, token, amount, poolMember }),
    );
  }

  async unstakeIntent(body: UnstakeIntentBody): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(body.userAddress);
    const token = this.token(body.tokenAddress);
    const amount = BigInt(body.amount);
    return this.run([{ token, address: userAddress }], userAddress, token, (state) =>
      planUnstakeIntent(state, { userAddress, token, amount }),
    );
  }

  async unstakeAction(body: MemberBody): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(body.userAddress);
    const token = this.token(body.tokenAddress);
    return this.run([{ token, address: userAddress }], userAddress, token, (state) =>
      planUnstakeAction(state, { userAddress, token, strk: this.strk }),
    );
  }

  async claim(body: MemberBody): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(body.userAddress);
    const token = this.token(body.tokenAddress);
    return this.run([{ token, address: userAddress }], userAddress, token, (state) =>
      planClaim(state, { userAddress, token, strk: this.strk }),
    );
  }

  async restake(body: MemberBody): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(body.userAddress);
    const token = this.token(body.tokenAddress);
    const members = [{ token, address: userAddress }];
    if (token !== this.strk) members.push({ token: this.strk, address: userAddress });
    return this.run(members, userAddress, this.strk, (state) =>
      planRestake(state, { userAddress, token, strk: this.strk }),
    );
  }

  /** The user's positions: in one pool with `tokenAddress`, else in every pool where it is a member. */
  async userMetrics(userAddressText: string, tokenAddress?: string): Promise<Record<string, unknown>> {
    const userAddress = parseFelt(userAddressText);
    const tokens = tokenAddress === undefined ? [...this.adapter.tokens] : [this.token(tokenAddress)];
    const state = await this.adapter.read({
      members: tokens.map((token) => ({ token, address: userAddress })),
      wallets: this.adapter.kind === "local" ? tokens.map((token) => ({ token, address: userAddress })) : [],
    });
    const positions: Record<string, unknown>[] = [];
    for (const token of tokens) {
      const pool = state.validator.pools.find((p) => p.token.address === token.address);
      if (!pool) {
        if (tokenAddress !== undefined) throw new UnknownTokenError(formatFelt(token.address));
        continue;
      }
      const member = state.member(token, userAddress);
      if (member) positions.push(this.position(pool, member, state.now));
    }
    const data: Record<string, unknown> = {
      userAddress: formatFelt(userAddress),
      validator: { stakerAddress: formatFelt(state.validator.stakerAddress) },
      positions,
      totalUnclaimedRewards: positions
        .reduce((sum, p) => sum + BigInt(p.unclaimedRewards as string), 0n)
        .toString(),
      rewardToken: tokenJson(this.strk),
    };
    if (this.adapter.kind === "local") {
      const walletTokens = tokenAddress === undefined ? this.adapter.tokens : tokens;
      data.wallet = walletTokens.map((token) => ({
        token: tokenJson(token),
        balance: (state.walletBalance(userAddress, token) ?? 0n).toString(),
      }));
    }
    return data;
  }

  async validatorMetrics(): Promise<Record<string, unknown>> {
    const state = await this.adapter.read({ members: [], wallets: [] });
    const v = state.validator;
    return {
      adapter: this.adapter.kind,
      stakerAddress: formatFelt(v.stakerAddress),
      ownStake: v.ownStake === null ? null : v.ownStake.toString(),
      commissionBps: v.commissionBps,
      exiting: v.exiting,
      currentEpoch: v.currentEpoch,
      epochLengthSeconds: v.epochLengthSeconds,
      exitWaitWindowSeconds: v.exitWaitWindowSeconds,
      pools: v.pools.map((p) => ({
        token: tokenJson(p.token),
        poolAddress: formatFelt(p.poolAddress),
        totalDelegated: p.totalDelegated.toString(),
      })),
    };
  }

  /**
   * STRK and BTC APY, rewards restaked once per epoch (daily where the adapter does not know the
   * epoch length), with the APR (simple yearly rate) beside each.
   */
  async apy(tokenAddress?: string): Promise<Record<string, unknown>> {
    const token = tokenAddress === undefined ? undefined : this.token(tokenAddress);
    const [state, yearlyMint, networkStake] = await Promise.all([
      this.adapter.read({ members: [], wallets: [] }),
      this.adapter.yearlyMint(),
      this.adapter.networkStake(),
    ]);
    const apr = computeApr({
      yearlyMint,
      strkStake: networkStake.strk,
      btcStake: networkStake.btc,
      btcShareBps: this.options.btcShareBps,
      commissionBps: state.validator.commissionBps,
      strkUsd: this.options.prices.strkUsd,
      btcUsd: this.options.prices.btcUsd,
    });
    const { epochLengthSeconds } = state.validator;
    const periodsPerYear =
      epochLengthSeconds === null ? DAYS_PER_YEAR : Number(SECONDS_PER_YEAR / BigInt(epochLengthSeconds));
    const strk = { apyPercent: computeApy(apr.strkRate, periodsPerYear), aprPercent: apr.strkPercent };
    const btc = { apyPercent: computeApy(apr.btcRate, periodsPerYear), aprPercent: apr.btcPercent };
    const data: Record<string, unknown> = {
      kind: "APY",
      compounding: {
        restaked: epochLengthSeconds === null ? "daily (the epoch length is unknown here)" : "once per epoch",
        periodsPerYear,
        epochLengthSeconds,
      },
      note:
        "APY = (1 + APR/n)^n − 1 with rewards net of commission restaked n times a year (once per epoch); " +
        "aprPercent is the simple yearly rate without compounding.",
      yearlyMint: yearlyMint.toString(),
      commissionBps: state.validator.commissionBps,
      alphaBps: this.options.btcShareBps,
      strk: { ...strk, networkStake: networkStake.strk.toString() },
      btc: {
        ...btc,
        networkStake: networkStake.btc.toString(),
        prices: { strkUsd: this.options.prices.strkUsd, btcUsd: this.options.prices.btcUsd },
      },
    };
    if (token) {
      if (!state.validator.pools.some((p) => p.token.address === token.address)) {
        throw new UnknownTokenError(formatFelt(token.address));
      }
      data.token = { ...tokenJson(token), ...(token.kind === "strk" ? strk : btc) };
    }
    return data;
  }

  private token(address: string | undefined): TokenInfo {
    if (address === undefined) return this.strk;
    const value = parseFelt(address);
    const token = this.adapter.tokens.find((t) => t.address === value);
    if (!token) throw new UnknownTokenError(formatFelt(value));
    return token;
  }

  private async run(
    members: Array<{ token: TokenInfo; address: bigint }>,
    payer: bigint,
    payerToken: TokenInfo,
    plan: (state: ChainState) => OperationPlan,
  ): Promise<Record<string, unknown>> {
    const outcome = await this.adapter.execute(
      { members, wallets: [{ token: payerToken, address: payer }] },
      plan,
    );
    return this.answer(outcome);
  }

  private answer(outcome: OperationOutcome): Record<string, unknown> {
    const { plan } = outcome;
    const data: Record<string, unknown> = {
      operation: plan.operation,
      userAddress: formatFelt(plan.userAddress),
      validator: {
        stakerAddress: formatFelt(outcome.stakerAddress),
        poolAddress: formatFelt(plan.pool.poolAddress),
      },
      token: tokenJson(plan.pool.token),
      amount: plan.amount.toString(),
      calls: plan.calls,
      ...plan.fields,
    };
    if (outcome.position) {
      const { member, walletBalance, now } = outcome.position;
      const pool = plan.position.pool;
      data.position = {
        ...(member
          ? this.position(pool, member, now)
          : { isMember: false, token: tokenJson(pool.token), poolAddress: formatFelt(pool.poolAddress) }),
        walletBalance: walletBalance === null ? null : walletBalance.toString(),
      };
    }
    if (outcome.operationId !== undefined) data.operationId = outcome.operationId;
    return data;
  }

  private position(pool: PoolView, member: MemberView, now: number): Record<string, unknown> {
    return {
      isMember: true,
      token: tokenJson(pool.token),
      poolAddress: formatFelt(pool.poolAddress),
      stakedAmount: member.amount.toString(),
      unclaimedRewards: member.unclaimedRewards.toString(),
      unpoolAmount: member.unpoolAmount.toString(),
      unpoolTime: member.unpoolTime === null ? null : new Date(member.unpoolTime * 1000).toISOString(),
      canWithdrawNow: member.unpoolTime !== null && now >= member.unpoolTime,
      commissionBps: member.commissionBps,
      rewardAddress: formatFelt(member.rewardAddress),
    };
  }
}

function tokenJson(token: TokenInfo): { address: string; symbol: string; decimals: number } {
  return { address: formatFelt(token.address), symbol: token.symbol, decimals: token.decimals };
}
