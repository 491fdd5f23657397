import type { CborAccountBook } from "../../src/dev/cborFacilitator/CborAccountBook.js";
import type { DelegationScope } from "../../src/protocol/cbor/DelegationScope.js";
import { issueGrant } from "../../src/protocol/cbor/issueGrant.js";
import { createSigningKey, payerIdOf } from "../../src/protocol/cbor/signatures.js";

/**
 * A fresh root whose USDC account is opened in `book` with `balance`, an agent without one, and a
 * one-grant chain root → agent capped at `cap` USDC, valid for an hour.
 */
export function oneGrantDelegation(
  book: CborAccountBook,
  terms: { cap: bigint; balance: bigint; scope?: DelegationScope },
) {
  const root = createSigningKey("ed25519");
  const agent = createSigningKey("ed25519");
  book.openAccount(payerIdOf(root.publicKey), "USDC", terms.balance);
  const chain = [
    issueGrant(root, {
      delegate: agent.publicKey,
      scope: terms.scope ?? { kind: "any" },
      cap: { currency: "USDC", amount: terms.cap },
      validUntil: Math.floor(Date.now() / 1000) + 3600,
    }),
  ];
  return { root, agent, chain, rootBalance: () => book.payerBalance(payerIdOf(root.publicKey), "USDC") };
}
