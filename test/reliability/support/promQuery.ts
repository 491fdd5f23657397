import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { parse } from "yaml";

export interface Rule {
  alert: string;
  expr: string;
}

/** The operators' alert rules (examples/observability/x402-gateway.rules.yml). */
export const ALERT_RULES = (
  parse(
    readFileSync(new URL("../../../examples/observability/x402-gateway.rules.yml", import.meta.url), "utf8"),
  ) as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((group) => group.rules);

/**
 * Rules whose condition needs a replicated Redis: provoked (and checked with {@link expectRuleFed}) by
 * test/reliability/scaleOut.test.ts rather than by alertRules.test.ts's single Redis.
 */
export const RULES_PROVOKED_ON_REPLICAS = ["X402LedgerWaitTimeouts"];

/** Every `x402_gateway_…{label="value",…}` selector of a PromQL expression, and its `by (…)` labels. */
export function selectors(
  expr: string,
): Array<{ name: string; matchers: Record<string, string>; by: string[] }> {
  const by = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap(([, labels]) =>
    labels!.split(",").map((label) => label.trim()),
  );
  return [...expr.matchAll(/(x402_gateway_[a-z_]+)(?:\{([^}]*)\})?/g)].map(([, name, inner]) => ({
    name: name!,
    matchers: Object.fromEntries(
      [...(inner ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]),
    ),
    // Prometheus adds `instance` at scrape time.
    by: by.filter((label) => label !== "instance"),
  }));
}

/** The samples of a Prometheus text page: metric name and labels of each line. */
export function samples(text: string): Array<{ name: string; labels: Record<string, string> }> {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? /);
      const labels = Object.fromEntries(
        [...(match?.[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]),
      );
      return { name: match?.[1] ?? "", labels };
    });
}

/** `rule`'s every selector finds a series (with its `by` labels) on the `/metrics` page `text`. */
export function expectRuleFed(rule: Rule, text: string): void {
  const page = samples(text);
  const used = selectors(rule.expr);
  expect(used.length, rule.alert).toBeGreaterThan(0);
  for (const selector of used) {
    const series = page.filter(
      (sample) =>
        sample.name === selector.name &&
        Object.entries(selector.matchers).every(([key, value]) => sample.labels[key] === value),
    );
    expect(
      series.length,
      `${rule.alert}: ${selector.name} ${JSON.stringify(selector.matchers)}`,
    ).toBeGreaterThan(0);
    for (const label of selector.by) {
      expect(
        series.some((sample) => label in sample.labels),
        `${rule.alert}: ${selector.name} has label ${label}`,
      ).toBe(true);
    }
  }
}
