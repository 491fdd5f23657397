import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import {
  CborAccountBook,
  type GrantSpend,
  type Transfer,
} from "../../src/dev/cborFacilitator/CborAccountBook.js";

const ROOT = resolve(import.meta.dirname, "../..");
const PRICE = 1_000n;
const dir = mkdtempSync(join(tmpdir(), "cbor-grant-book-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let intents = 0;
/** A transfer of one price from `payer` to `merchant` under `grants`, each its own intent. */
const transfer = (grants: GrantSpend[], amount = PRICE, intent = `intent-${intents++}`): Transfer => ({
  intent,
  payer: "root",
  merchant: "merchant",
  currency: "USDC",
  amount,
  settledAt: 0,
  grants,
});

/** A book with the root's account open at `balance`; counts the receipts it signed. */
function openBook(balance = 100n * PRICE, file = ":memory:") {
  const book = new CborAccountBook(file);
  book.openAccount("root", "USDC", balance);
  let signed = 0;
  const settle = (t: Transfer) =>
    book.transfer(t, () => {
      signed++;
      return new Uint8Array([signed]);
    });
  return { book, settle, signed: () => signed };
}

describe("CborAccountBook: delegation grants' spending", () => {
  it("sequential settlements under a cap of 3 prices: exactly 3 succeed, the rest debit nothing", () => {
    const { book, settle, signed } = openBook();
    const grant = { id: "g-three", cap: 3n * PRICE };
    const outcomes = Array.from({ length: 6 }, () => settle(transfer([grant])));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, false, false, false]);
    for (const refused of outcomes.slice(3)) {
      expect(refused).toEqual({
        ok: false,
        reason: "delegation_cap_exceeded",
        grant: "g-three",
        spent: 3n * PRICE,
        cap: 3n * PRICE,
      });
    }
    expect(signed()).toBe(3);
    expect(book.settlements()).toBe(3);
    expect(book.grantSpent("g-three")).toBe(3n * PRICE);
    expect(book.payerBalance("root", "USDC")).toBe(97n * PRICE);
    expect(book.merchantBalance("merchant", "USDC")).toBe(3n * PRICE);
    book.close();
  });

  it("a cap that is not a multiple of the price: what is left below one price pays nothing", () => {
    const { book, settle } = openBook();
    const grant = { id: "g-2.5", cap: (5n * PRICE) / 2n };
    expect([1, 2, 3].map(() => settle(transfer([grant])).ok)).toEqual([true, true, false]);
    // A smaller payment still fits in what is left.
    expect(settle(transfer([grant], PRICE / 2n)).ok).toBe(true);
    expect(settle(transfer([grant], 1n))).toMatchObject({ ok: false, reason: "delegation_cap_exceeded" });
    expect(book.grantSpent("g-2.5")).toBe(grant.cap);
    expect(book.payerBalance("root", "USDC")).toBe(100n * PRICE - grant.cap);
    book.close();
  });

  it("every grant of a chain is charged; the tightest refuses, and a refused payment charges no grant", () => {
    const { book, settle } = openBook();
    const root = { id: "g-root", cap: 5n * PRICE };
    const first = { id: "g-agent-1", cap: 2n * PRICE };
    const second = { id: "g-agent-2", cap: 10n * PRICE };
    expect([1, 2, 3].map(() => settle(transfer([root, first])).ok)).toEqual([true, true, false]);
    expect(settle(transfer([root, first]))).toMatchObject({ grant: "g-agent-1", spent: 2n * PRICE });
    expect(book.grantSpent("g-root")).toBe(2n * PRICE);
    // Another agent under the same root grant: the root grant's 3 prices left bind it.
    expect([1, 2, 3, 4].map(() => settle(transfer([root, second])).ok)).toEqual([true, true, true, false]);
    expect(settle(transfer([root, second]))).toMatchObject({ grant: "g-root", spent: 5n * PRICE });
    expect([book.grantSpent("g-root"), book.grantSpent("g-agent-1"), book.grantSpent("g-agent-2")]).toEqual([
      5n * PRICE,
      2n * PRICE,
      3n * PRICE,
    ]);
    expect(book.payerBalance("root", "USDC")).toBe(95n * PRICE);
    book.close();
  });

  it("a grant named twice in one chain is charged once", () => {
    const { book, settle } = openBook();
    const grant = { id: "g-twice", cap: PRICE };
    expect(settle(transfer([grant, grant])).ok).toBe(true);
    expect(book.grantSpent("g-twice")).toBe(PRICE);
    book.close();
  });

  it("insufficient funds, an unknown payer and a second settle of an intent charge no grant", () => {
    const { book, settle } = openBook(PRICE);
    const grant = { id: "g-poor", cap: 10n * PRICE };
    expect(settle(transfer([grant], PRICE, "once")).ok).toBe(true);
    expect(settle(transfer([grant], PRICE, "once"))).toEqual({ ok: false, reason: "intent_already_settled" });
    expect(settle(transfer([grant]))).toEqual({ ok: false, reason: "insufficient_funds" });
    expect(settle({ ...transfer([grant]), payer: "nobody" })).toEqual({ ok: false, reason: "unknown_payer" });
    expect(book.grantSpent("g-poor")).toBe(PRICE);
    expect(book.payerBalance("root", "USDC")).toBe(0n);
    book.close();
  });

  it("a refund gives its units back to every grant the settlement spent under (once)", () => {
    const { book, settle } = openBook();
    const root = { id: "g-refund-root", cap: 2n * PRICE };
    const agent = { id: "g-refund-agent", cap: 2n * PRICE };
    const whole = transfer([root, agent]);
    const partly = transfer([root, agent]);
    const receipts = [whole, partly].map((t) => settle(t));
    expect(settle(transfer([root, agent])).ok).toBe(false);
    const refund = (t: Transfer, amount: bigint, receipt: Uint8Array) =>
      book.refund({ intent: t.intent, receipt, amount, refundedAt: 0 }, () => new Uint8Array([9]));
    const [first, second] = receipts.map((outcome) => (outcome.ok ? outcome.receipt : new Uint8Array()));
    expect(refund(whole, PRICE, first!).ok).toBe(true);
    expect(book.grantSpent("g-refund-root")).toBe(PRICE);
    expect(book.grantSpent("g-refund-agent")).toBe(PRICE);
    expect(refund(partly, 400n, second!).ok).toBe(true);
    expect(book.grantSpent("g-refund-root")).toBe(600n);
    // Refused refunds give nothing back.
    expect(refund(partly, 400n, second!)).toEqual({ ok: false, reason: "already_refunded" });
    expect(book.grantSpent("g-refund-root")).toBe(600n);
    // 1400 of the 2000 cap is free again: one more price fits, a second does not.
    expect(settle(transfer([root, agent])).ok).toBe(true);
    expect(settle(transfer([root, agent]))).toMatchObject({ ok: false, reason: "delegation_cap_exceeded" });
    expect(book.payerBalance("root", "USDC")).toBe(100n * PRICE - 2n * PRICE + 400n);
    book.close();
  });

  it("a grant's spending and each intent's receipt survive a reopen of the file", () => {
    const file = join(dir, "reopen.sqlite");
    const first = openBook(100n * PRICE, file);
    const grant = { id: "g-durable", cap: 2n * PRICE };
    expect(first.settle(transfer([grant], PRICE, "durable-1")).ok).toBe(true);
    first.book.close();
    const second = openBook(100n * PRICE, file);
    expect(second.book.grantSpent("g-durable")).toBe(PRICE);
    expect(second.book.receiptOf("durable-1")).toEqual(new Uint8Array([1]));
    expect(second.book.receiptOf("never")).toBeUndefined();
    expect(second.settle(transfer([grant])).ok).toBe(true);
    expect(second.settle(transfer([grant])).ok).toBe(false);
    second.book.close();
  });

  it("three processes settling at once at the same file: exactly cap/price succeed, balances exact", async () => {
    const file = join(dir, "concurrent.sqlite");
    const cap = 25n * PRICE;
    const setup = openBook(1_000n * PRICE, file);
    setup.book.close();
    const children = ["a", "b", "c"].map((prefix) =>
      spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "test/dev/support/settleUnderGrant.ts",
          file,
          "root",
          "merchant",
          "g-shared",
          cap.toString(),
          PRICE.toString(),
          "20",
          prefix,
        ],
        { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] },
      ),
    );
    const lines = children.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
    // Every process has the file open before any settles.
    for (const line of lines) expect((await line.next()).value).toBe("ready");
    for (const child of children) child.stdin.write("go\n");
    const results = await Promise.all(
      lines.map(async (line) => JSON.parse((await line.next()).value as string) as Array<string | null>),
    );
    await Promise.all(children.map((child) => (child.exitCode === null ? once(child, "exit") : undefined)));
    const outcomes = results.flat();
    expect(outcomes).toHaveLength(60);
    expect(outcomes.filter((outcome) => outcome === null)).toHaveLength(25);
    expect(outcomes.filter((outcome) => outcome === "delegation_cap_exceeded")).toHaveLength(35);
    const book = new CborAccountBook(file);
    expect(book.grantSpent("g-shared")).toBe(cap);
    expect(book.settlements()).toBe(25);
    expect(book.payerBalance("root", "USDC")).toBe(1_000n * PRICE - cap);
    expect(book.merchantBalance("merchant", "USDC")).toBe(cap);
    book.close();
  }, 60_000);
});
