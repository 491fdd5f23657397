import { describe, expect, it } from "vitest";
import { DEFAULT_RECORD_DELAY_MS, PayerRecorder } from "../../src/dev/PayerRecorder.js";

describe("PayerRecorder", () => {
  it("records each scheduled address after the delay, in order, and idle() waits for them", async () => {
    const written: string[] = [];
    const recorder = new PayerRecorder({ record: ({ payer }) => written.push(payer), delayMs: 1 });
    recorder.schedule({ payer: "0xaa", contract: "0x1" });
    recorder.schedule({ payer: "0xbb", contract: "0x1" });
    expect(recorder.pending).toBe(2);
    expect(written).toEqual([]);
    await recorder.idle();
    expect(written).toEqual(["0xaa", "0xbb"]);
    expect(recorder.pending).toBe(0);
    await recorder.idle(); // nothing pending: resolves at once
  });

  it("stop() drops what is pending and refuses what comes after", async () => {
    const written: string[] = [];
    const recorder = new PayerRecorder({ record: ({ payer }) => written.push(payer), delayMs: 60_000 });
    recorder.schedule({ payer: "0xaa", contract: "0x1" });
    const idle = recorder.idle();
    recorder.stop();
    await idle;
    recorder.schedule({ payer: "0xbb", contract: "0x1" });
    expect(recorder.pending).toBe(0);
    expect(written).toEqual([]);
  });

  it("a failing write is logged, not thrown, and the others still happen", async () => {
    const lines: string[] = [];
    const written: string[] = [];
    const recorder = new PayerRecorder({
      record: ({ payer }) => {
        if (payer === "0xbad") throw new Error("registry closed");
        written.push(payer);
      },
      delayMs: 0,
      log: (line) => lines.push(line),
    });
    recorder.schedule({ payer: "0xbad", contract: "0x1" });
    recorder.schedule({ payer: "0xaa", contract: "0x1" });
    await recorder.idle();
    expect(written).toEqual(["0xaa"]);
    expect(lines).toContain("layer-2: recording 0xbad failed: registry closed");
  });

  it("defaults to 5 s and refuses a delay that is not a whole number of ms >= 0", () => {
    expect(new PayerRecorder({ record: () => undefined }).delayMs).toBe(DEFAULT_RECORD_DELAY_MS);
    expect(DEFAULT_RECORD_DELAY_MS).toBe(5_000);
    for (const delayMs of [-1, 1.5, Number.NaN, Infinity]) {
      expect(() => new PayerRecorder({ record: () => undefined, delayMs })).toThrow(RangeError);
    }
  });
});
