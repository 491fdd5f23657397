/**
 * What an offer's `extensions.pass` buys, in words for the paywall page (`10 requests within 30 days`,
 * `1 hour`), or undefined when the offer sells no pass (or says it in a shape this page does not know).
 */
export function describePass(extensions: Record<string, unknown> | undefined): string | undefined {
  const pass = extensions?.pass as { requests?: unknown; seconds?: unknown } | undefined;
  if (typeof pass !== "object" || pass === null) return undefined;
  const seconds = typeof pass.seconds === "number" && pass.seconds > 0 ? pass.seconds : undefined;
  const requests = typeof pass.requests === "number" && pass.requests > 0 ? pass.requests : undefined;
  if (seconds === undefined) return undefined;
  const time = duration(seconds);
  if (requests === undefined) return `access for ${time}`;
  return `${requests} request${requests === 1 ? "" : "s"} within ${time}`;
}

function duration(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  for (const [size, name] of units) {
    if (seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} seconds`;
}
