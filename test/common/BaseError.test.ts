import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BaseError } from "../../src/common/BaseError.js";
import { ConfigError } from "../../src/config/ConfigError.js";
import { GatewayError } from "../../src/protocol/errors.js";
import { RecognitionError } from "../../src/recognition/RecognitionError.js";
import { InvalidJsonError } from "../../src/staking/errors.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

describe("one error family", () => {
  it("walk() finds the innermost cause, or the first cause a predicate accepts", () => {
    const root = new TypeError("socket hang up");
    const middle = new RecognitionError("transport", "could not reach the node", { cause: root });
    const top = new GatewayError("facilitator_unavailable", "down", { cause: middle });
    expect(top.walk()).toBe(root);
    expect(top.walk((error) => error instanceof RecognitionError)).toBe(middle);
    expect(top.walk((error) => error instanceof SyntaxError)).toBeUndefined();
    expect(new GatewayError("not_found", "none").walk()).toBeInstanceOf(GatewayError);
  });

  it("every family member has a code, a message, details, a docs path where documented, and its class name", () => {
    const members: BaseError[] = [
      new GatewayError("not_found", "no upstream serves /x"),
      new InvalidJsonError(),
      new RecognitionError("malformed", "bad answer"),
      new ConfigError([{ file: "g.yaml", line: 1, column: 1, path: "listen", message: "bad" }]),
    ];
    expect(members.map((error) => [error.name, error.code, error instanceof BaseError])).toEqual([
      ["GatewayError", "not_found", true],
      ["InvalidJsonError", "INVALID_JSON", true],
      ["RecognitionError", "malformed", true],
      ["ConfigError", "invalid_config", true],
    ]);
    expect(members.every((error) => typeof error.details === "object" && error.message.length > 0)).toBe(
      true,
    );
    expect(new GatewayError("not_found", "x").status).toBe(404);
    expect(new GatewayError("not_found", "x").docsPath).toBe("docs/errors.md");
  });

  it("no error class in the published code extends Error directly (they extend BaseError)", () => {
    const offenders = readdirSync(SRC, { recursive: true, encoding: "utf8" })
      .filter((path) => path.endsWith(".ts") && !path.startsWith("dev/"))
      .filter((path) => /class \w+ extends Error\b/.test(readFileSync(join(SRC, path), "utf8")))
      .filter((path) => path !== join("common", "BaseError.ts"));
    expect(offenders).toEqual([]);
  });
});
