import type { TokenInfo } from "./tokens.js";

/** One unsigned Starknet call: hex addresses and decimal integers in `calldata`. */
export interface StarknetCall {
  contractAddress: string;
  entrypoint: string;
  calldata: string[];
}

/** A delegation pool of the validator. */
export interface PoolView {
  token: TokenInfo;
  poolAddress: bigint;
  /** Sum of the members' pooled amounts, in the token's smallest unit. */
  totalDelegated: bigint;
}

/** The validator as the operations see it. */
export interface ValidatorView {
  stakerAddress: bigint;
  commissionBps: number;
  /** Leaving the protocol (or removed): no new delegation. */
  exiting: boolean;
  exitWaitWindowSeconds: number | null;
  currentEpoch: number;
  /** Null when the chain does not say (Starknet adapter). */
  epochLengthSeconds: number | null;
  /** The validator's own STRK stake; null when unknown. */
  ownStake: bigint | null;
  pools: PoolView[];
}

/** A pool member's record (`PoolMemberInfoV1`). Rewards are always STRK. */
export interface MemberView {
  rewardAddress: bigint;
  amount: bigint;
  unclaimedRewards: bigint;
  commissionBps: number;
  unpoolAmount: bigint;
  /** Unix seconds from which the exit action is allowed; null without a pending intent. */
  unpoolTime: number | null;
}

/** What an operation reads: chain state at one instant, already fetched. */
export interface ChainState {
  /** Unix seconds. */
  now: number;
  validator: ValidatorView;
  member(token: TokenInfo, address: bigint): MemberView | null;
  /** The (simulated) wallet balance; null when the adapter does not track wallets. */
  walletBalance(address: bigint, token: TokenInfo): bigint | null;
}

/** Which members and wallets an operation needs in its {@link ChainState}. */
export interface StateRequest {
  members: Array<{ token: TokenInfo; address: bigint }>;
  wallets: Array<{ token: TokenInfo; address: bigint }>;
}

/** A change of state that the local adapter applies (the Starknet adapter applies nothing). */
export type Effect =
  | { type: "debit"; token: TokenInfo; address: bigint; amount: bigint }
  | { type: "credit"; token: TokenInfo; address: bigint; amount: bigint }
  | { type: "enter"; token: TokenInfo; member: bigint; rewardAddress: bigint; amount: bigint }
  | { type: "setAmount"; token: TokenInfo; member: bigint; amount: bigint }
  | { type: "setUnpool"; token: TokenInfo; member: bigint; amount: bigint; time: number | null }
  /** Pay out `amount` of the member's unclaimed rewards (newly minted STRK). */
  | { type: "takeRewards"; token: TokenInfo; member: bigint; amount: bigint }
  | { type: "remove"; token: TokenInfo; member: bigint };

/** An operation decided against a {@link ChainState}: what to answer, which calls, which effects. */
export interface OperationPlan {
  operation: string;
  userAddress: bigint;
  pool: PoolView;
  amount: bigint;
  calls: StarknetCall[];
  /** The operation's own answer fields (`recipient`, `estimatedUnpoolTime`, …). */
  fields: Record<string, unknown>;
  effects: Effect[];
  /** Whose position (in which pool) the answer shows after the change. */
  position: { pool: PoolView; member: bigint };
}

/** The result of executing a plan. */
export interface OperationOutcome {
  plan: OperationPlan;
  /** The validator the plan was decided for. */
  stakerAddress: bigint;
  /** Position after the change (local adapter only). */
  position?: { member: MemberView | null; walletBalance: bigint | null; now: number };
  /** Sequence number in the operation log (local adapter only). */
  operationId?: number;
}

/** A chain the staking service runs against: the local simulator or Starknet. */
export interface ChainAdapter {
  readonly kind: "local" | "starknet";
  readonly tokens: readonly TokenInfo[];
  /** Read the state, decide the operation with `plan`, and (local) apply its effects, atomically. */
  execute(request: StateRequest, plan: (state: ChainState) => OperationPlan): Promise<OperationOutcome>;
  /** Read-only snapshot for metrics. */
  read(request: StateRequest): Promise<ChainState>;
  /** STRK minted per year for all stakers, in fri. */
  yearlyMint(): Promise<bigint>;
  /** Total network stake (18-decimal normalised) sharing the mint, for the APR. */
  networkStake(): Promise<{ strk: bigint; btc: bigint }>;
  close(): void;
}
