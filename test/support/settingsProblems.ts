import { expect } from "vitest";
import { stringify } from "yaml";
import { x402 } from "../../src/adapters/express.js";
import { ConfigError } from "../../src/config/ConfigError.js";
import { parseConfig } from "../../src/config/loadConfig.js";
import { X402OptionsError } from "../../src/paywall/setup/X402OptionsError.js";

/** The problems x402() reports for these settings, one line each (none when it accepts them). */
export function x402Problems(settings: object): string[] {
  try {
    void x402(settings as never);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(X402OptionsError);
    return (error as X402OptionsError).problems;
  }
}

/** The problems the gateway's config loader reports for the same settings written as YAML. */
export function configProblems(settings: object): string[] {
  const text = stringify({ ...settings, upstreams: [{ url: "http://127.0.0.1:3001" }] });
  try {
    parseConfig(text, { file: "gateway.yaml", env: {} });
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((problem) => `${problem.path}: ${problem.message}`);
  }
}
