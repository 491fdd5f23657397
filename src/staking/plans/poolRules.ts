import type { ChainState, MemberView, PoolView } from "../ChainAdapter.js";
import {
  AmountIsZeroError,
  InsufficientBalanceError,
  PoolMemberNotFoundError,
  UnknownTokenError,
  ValidatorExitingError,
} from "../errors.js";
import { formatFelt } from "../felt.js";
import type { TokenInfo } from "../tokens.js";

/** The checks the delegation pool contract makes, shared by every operation plan. */
export const poolRules = {
  pool(state: ChainState, token: TokenInfo): PoolView {
    const pool = state.validator.pools.find((p) => p.token.address === token.address);
    if (!pool) throw new UnknownTokenError(formatFelt(token.address));
    return pool;
  },
  member(state: ChainState, token: TokenInfo, address: bigint): MemberView {
    const member = state.member(token, address);
    if (!member) throw new PoolMemberNotFoundError(formatFelt(address), token.symbol);
    return member;
  },
  nonZero(amount: bigint): void {
    if (amount === 0n) throw new AmountIsZeroError();
  },
  validatorActive(state: ChainState): void {
    if (state.validator.exiting) throw new ValidatorExitingError(formatFelt(state.validator.stakerAddress));
  },
  /** Only when the adapter tracks wallets (local); on Starknet the wallet's transaction would fail. */
  canPay(state: ChainState, address: bigint, token: TokenInfo, amount: bigint, incoming = 0n): void {
    const balance = state.walletBalance(address, token);
    if (balance !== null && balance + incoming < amount) {
      throw new InsufficientBalanceError(formatFelt(address), token.symbol, balance + incoming, amount);
    }
  },
};
