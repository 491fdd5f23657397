import { describe, expect, it } from "vitest";
import { requireOptional } from "../../src/common/requireOptional.js";

describe("requireOptional", () => {
  it("loads an installed package", () => {
    const sqlite = requireOptional<unknown>("better-sqlite3", "the local adapter");
    expect(typeof sqlite).toBe("function");
  });

  it("names the package to install and who needs it when it is missing", () => {
    expect(() =>
      requireOptional("x402-gateway-no-such-package", "the staking backend's local adapter"),
    ).toThrow(
      "the staking backend's local adapter needs the optional package x402-gateway-no-such-package: run `npm install x402-gateway-no-such-package`",
    );
  });
});
