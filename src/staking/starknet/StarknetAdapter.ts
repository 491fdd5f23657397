import { StarknetRpc } from "../../starknet/StarknetRpc.js";
import { StarknetRpcFailureError } from "../../starknet/StarknetRpcFailureError.js";
import type {
  ChainAdapter,
  ChainState,
  MemberView,
  OperationOutcome,
  OperationPlan,
  PoolView,
  StateRequest,
  ValidatorView,
} from "../ChainAdapter.js";
import type { StakingError } from "../errors.js";
import { ChainResponseError, ChainUnavailableError } from "../errors.js";
import { formatFelt, parseFelt } from "../felt.js";
import type { StakingConfig } from "../stakingConfigSchema.js";
import type { TokenInfo } from "../tokens.js";
import { FeltReader } from "./FeltReader.js";

export interface StarknetAdapterOptions {
  config: NonNullable<StakingConfig["starknet"]>;
  tokens: readonly TokenInfo[];
  /** Milliseconds since the Unix epoch (compared with `unpool_time`). */
  clock: () => number;
  fetch?: typeof fetch;
}

/**
 * Non-custodial: reads the staking, pool, token and minting-curve contracts over JSON-RPC v0.10
 * (positional `starknet_call`s at block `latest`) and returns unsigned calls; applies nothing and keeps no state.
 * A node that does not answer (transport, timeout, HTTP error) is `CHAIN_UNAVAILABLE` (503).
 */
export class StarknetAdapter implements ChainAdapter {
  readonly kind = "starknet";
  readonly tokens: readonly TokenInfo[];
  private readonly rpc: StarknetRpc;
  private readonly clock: () => number;
  private readonly staking: string;
  private readonly mintingCurve: string;
  private readonly staker: bigint;

  constructor(options: StarknetAdapterOptions) {
    const { config } = options;
    this.tokens = options.tokens;
    this.clock = options.clock;
    this.staking = formatFelt(parseFelt(config.stakingContract));
    this.mintingCurve = formatFelt(parseFelt(config.mintingCurveContract));
    this.staker = parseFelt(config.stakerAddress);
    this.rpc = new StarknetRpc({
      rpcUrl: config.rpcUrl,
      setting: "starknet.rpcUrl",
      timeoutMs: config.timeoutMs,
      fetch: options.fetch,
    });
  }

  async execute(
    request: StateRequest,
    plan: (state: ChainState) => OperationPlan,
  ): Promise<OperationOutcome> {
    const state = await this.read(request);
    return { plan: plan(state), stakerAddress: state.validator.stakerAddress };
  }

  async read(request: StateRequest): Promise<ChainState> {
    const now = Math.floor(this.clock() / 1000);
    const validator = await this.validator();
    const poolOf = (token: TokenInfo) => validator.pools.find((p) => p.token.address === token.address);
    const poolsInvolved = new Map<bigint, PoolView>();
    for (const { token } of request.members) {
      const pool = poolOf(token);
      if (pool) poolsInvolved.set(pool.poolAddress, pool);
    }
    const members = new Map<string, MemberView | null>();
    const wallets = new Map<string, bigint>();
    const key = (token: TokenInfo, address: bigint) => `${token.address}:${address}`;
    const [removed] = await Promise.all([
      Promise.all([...poolsInvolved.values()].map((pool) => this.poolStakerRemoved(pool))),
      ...request.members.map(async ({ token, address }) => {
        const pool = poolOf(token);
        if (pool) members.set(key(token, address), await this.poolMember(pool, address));
      }),
      ...request.wallets.map(async ({ token, address }) => {
        wallets.set(key(token, address), await this.balanceOf(token, address));
      }),
    ]);
    const exiting = validator.exiting || removed.some(Boolean);
    return {
      now,
      validator: { ...validator, exiting },
      member: (token, address) => {
        const k = key(token, address);
        if (!members.has(k))
          throw new Error(`member ${formatFelt(address)} of ${token.symbol} was not fetched`);
        return members.get(k)!;
      },
      walletBalance: (address, token) => wallets.get(key(token, address)) ?? null,
    };
  }

  async yearlyMint(): Promise<bigint> {
    const reader = await this.call(this.mintingCurve, "yearly_mint", []);
    const value = reader.u256();
    reader.end();
    return value;
  }

  async networkStake(): Promise<{ strk: bigint; btc: bigint }> {
    const reader = await this.call(this.staking, "get_current_total_staking_power", []);
    const strk = reader.uint(128);
    const btc = reader.uint(128);
    reader.end();
    return { strk, btc };
  }

  close(): void {}

  /** `staker_pool_info`, `get_staker_info_v1`, `get_current_epoch` and `contract_parameters_v1` of the staking contract. */
  private async validator(): Promise<ValidatorView> {
    const staker = formatFelt(this.staker);
    const [poolInfo, stakerInfo, epoch, parameters] = await Promise.all([
      this.call(this.staking, "staker_pool_info", [staker]),
      this.call(this.staking, "get_staker_info_v1", [staker]),
      this.call(this.staking, "get_current_epoch", []),
      this.call(this.staking, "contract_parameters_v1", []),
    ]);
    const commission = poolInfo.option(() => poolInfo.uint(16));
    const pools = poolInfo.span(() => ({
      poolAddress: poolInfo.felt(),
      tokenAddress: poolInfo.felt(),
      amount: poolInfo.uint(128),
    }));
    poolInfo.end();

    const info = stakerInfo.option(() => {
      stakerInfo.felt(); // reward_address
      stakerInfo.felt(); // operational_address
      const unstakeTime = stakerInfo.option(() => stakerInfo.uint(64));
      const amountOwn = stakerInfo.uint(128);
      stakerInfo.uint(128); // unclaimed_rewards_own
      stakerInfo.option(() => [stakerInfo.felt(), stakerInfo.uint(128), stakerInfo.uint(16)]); // pool_info (V1)
      return { unstakeTime, amountOwn };
    });
    stakerInfo.end();

    const currentEpoch = epoch.uint(64);
    epoch.end();

    parameters.uint(128); // min_stake
    parameters.felt(); // token_address
    parameters.felt(); // attestation_contract
    parameters.felt(); // pool_contract_class_hash
    parameters.felt(); // reward_supplier
    const exitWaitWindow = parameters.uint(64);
    parameters.end();

    return {
      stakerAddress: this.staker,
      commissionBps: Number(commission ?? 0n),
      exiting: info === null || info.unstakeTime !== null,
      exitWaitWindowSeconds: Number(exitWaitWindow),
      currentEpoch: Number(currentEpoch),
      epochLengthSeconds: null,
      ownStake: info?.amountOwn ?? null,
      pools: pools.flatMap((p) => {
        const token = this.tokens.find((t) => t.address === p.tokenAddress);
        return token ? [{ token, poolAddress: p.poolAddress, totalDelegated: p.amount }] : [];
      }),
    };
  }

  /** The pool's `contract_parameters_v1`: is its staker removed? (It must also be this staker's pool of this token.) */
  private async poolStakerRemoved(pool: PoolView): Promise<boolean> {
    const reader = await this.call(formatFelt(pool.poolAddress), "contract_parameters_v1", []);
    const staker = reader.felt();
    const removed = reader.bool();
    reader.felt(); // staking_contract
    const token = reader.felt();
    reader.uint(16); // commission
    reader.end();
    if (staker !== this.staker || token !== pool.token.address) {
      throw new ChainResponseError("The pool contract belongs to another staker or token", {
        poolAddress: formatFelt(pool.poolAddress),
        stakerAddress: formatFelt(staker),
        tokenAddress: formatFelt(token),
      });
    }
    return removed;
  }

  /** The pool's `get_pool_member_info_v1(member)`: `Option<PoolMemberInfoV1>`. */
  private async poolMember(pool: PoolView, address: bigint): Promise<MemberView | null> {
    const reader = await this.call(formatFelt(pool.poolAddress), "get_pool_member_info_v1", [
      formatFelt(address),
    ]);
    const member = reader.option(() => ({
      rewardAddress: reader.felt(),
      amount: reader.uint(128),
      unclaimedRewards: reader.uint(128),
      commissionBps: Number(reader.uint(16)),
      unpoolAmount: reader.uint(128),
      unpoolTime: ((t) => (t === null ? null : Number(t)))(reader.option(() => reader.uint(64))),
    }));
    reader.end();
    return member;
  }

  /** The token's ERC-20 `balance_of(account) -> u256`. */
  private async balanceOf(token: TokenInfo, address: bigint): Promise<bigint> {
    const reader = await this.call(formatFelt(token.address), "balance_of", [formatFelt(address)]);
    const balance = reader.u256();
    reader.end();
    return balance;
  }

  private async call(contractAddress: string, entrypoint: string, calldata: string[]): Promise<FeltReader> {
    let result: unknown;
    try {
      result = await this.rpc.call(contractAddress, entrypoint, calldata);
    } catch (error) {
      throw toStakingError(error, contractAddress, entrypoint);
    }
    if (!Array.isArray(result) || !result.every((felt) => typeof felt === "string")) {
      throw new ChainResponseError(`${entrypoint} did not return a list of felts`, {
        contractAddress,
        entrypoint,
      });
    }
    return new FeltReader(entrypoint, result);
  }
}

function toStakingError(error: unknown, contractAddress: string, entrypoint: string): StakingError {
  if (error instanceof StarknetRpcFailureError && error.isTransport) {
    return new ChainUnavailableError(describeUnavailable(error), error);
  }
  if (error instanceof StarknetRpcFailureError && error.kind === "rpc") {
    return new ChainResponseError(
      `starknet_call ${entrypoint} failed: ${error.details.rpcMessage}`,
      { contractAddress, entrypoint, rpcCode: error.details.code },
      error,
    );
  }
  return new ChainResponseError(
    `starknet_call ${entrypoint}: the node's answer is not a list of felts`,
    { contractAddress, entrypoint },
    error,
  );
}

/** The backend's wording for a node that did not answer JSON-RPC. */
function describeUnavailable(failure: StarknetRpcFailureError): string {
  const { status, timeoutMs } = failure.details;
  switch (failure.kind) {
    case "timeout":
      return `The Starknet node did not answer within ${timeoutMs} ms`;
    case "http":
      return `The Starknet node answered HTTP ${status}`;
    case "not_json":
      return "The Starknet node answered something that is not JSON";
    default:
      return "The Starknet node is unreachable";
  }
}
