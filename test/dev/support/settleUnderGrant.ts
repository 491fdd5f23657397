/**
 * A process settling at shared books: opens the SQLite file, prints `ready`, waits for a line on stdin
 * (so that every process starts at once), attempts `count` transfers of `amount` under one grant, and
 * prints the outcomes as one JSON line. Used by the book's concurrency test.
 * Arguments: file payer merchant grantId cap amount count intentPrefix
 */
import { once } from "node:events";
import { CborAccountBook } from "../../../src/dev/cborFacilitator/CborAccountBook.js";

const [file, payer, merchant, grantId, cap, amount, count, prefix] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const book = new CborAccountBook(file);
process.stdout.write("ready\n");
await once(process.stdin, "data");
const outcomes: Array<string | null> = [];
for (let i = 0; i < Number(count); i++) {
  const outcome = book.transfer(
    {
      intent: `${prefix}-${i}`,
      payer,
      merchant,
      currency: "USDC",
      amount: BigInt(amount),
      settledAt: 0,
      grants: [{ id: grantId, cap: BigInt(cap) }],
    },
    () => new Uint8Array([i]),
  );
  outcomes.push(outcome.ok ? null : outcome.reason);
}
book.close();
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
process.stdin.destroy();
