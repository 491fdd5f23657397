/**
 * What this server process (the session) has spent, in smallest units. An amount is reserved before
 * its payment is signed, so concurrent calls cannot both fit under the cap; it is released only when
 * the payment certainly did not settle.
 */
export class SessionBudget {
  #spent = 0n;

  constructor(readonly cap: bigint) {}

  /** Paid or reserved so far. */
  get spent(): bigint {
    return this.#spent;
  }

  /** Reserves `amount` if it fits under the cap; false (nothing reserved) otherwise. */
  reserve(amount: bigint): boolean {
    if (this.#spent + amount > this.cap) return false;
    this.#spent += amount;
    return true;
  }

  /** Gives back a reservation whose payment certainly did not settle. */
  release(amount: bigint): void {
    this.#spent -= amount;
  }
}
