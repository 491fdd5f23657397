import { describe, expect, it } from "vitest";
import { callRouteFunction } from "../../src/pricing/callRouteFunction.js";
import { GatewayError } from "../../src/protocol/errors.js";

const failure = async (promise: Promise<unknown>): Promise<GatewayError> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
};

describe("callRouteFunction", () => {
  it("answers what a sync or an async function returns, with the arguments given", async () => {
    expect(await callRouteFunction((a: number, b: number) => a + b, [2, 3], "sum", {})).toBe(5);
    expect(await callRouteFunction(async (a: string) => `${a}!`, ["paid"], "shout", {})).toBe("paid!");
  });

  it("a function that throws, synchronously or not: route_function_failed with what it threw as the cause", async () => {
    const thrown = new Error("price oracle down");
    for (const fn of [
      () => {
        throw thrown;
      },
      async () => {
        throw thrown;
      },
    ]) {
      const error = await failure(
        callRouteFunction(fn, [], "the route's price function", { field: "price" }),
      );
      expect(error.code).toBe("route_function_failed");
      expect(error.status).toBe(500);
      expect(error.message).toBe("the route's price function threw");
      expect(error.cause).toBe(thrown);
      expect(error.details).toEqual({ field: "price" });
    }
  });

  it("a function that never answers: route_function_failed once the time is up, not a request held for ever", async () => {
    const began = performance.now();
    const error = await failure(
      callRouteFunction(
        () => new Promise<never>(() => {}),
        [],
        "the route's payTo function",
        { field: "payTo" },
        50,
      ),
    );
    expect(performance.now() - began).toBeGreaterThanOrEqual(45);
    expect(error.code).toBe("route_function_failed");
    expect(error.message).toBe("the route's payTo function did not answer within 50 ms");
    expect(error.details).toEqual({ field: "payTo", timedOut: "true" });
  });
});
