import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { PayOutcome } from "./payForResource.js";
import type { ResourceSnapshot } from "./readResource.js";

/** An outcome as an MCP tool result: a text summary for the model, the outcome as structured content. */
export function toToolResult(outcome: PayOutcome): CallToolResult {
  return {
    content: [{ type: "text", text: summarize(outcome) }],
    structuredContent: outcome as unknown as Record<string, unknown>,
    isError: outcome.outcome === "unpayable" || outcome.outcome === "failed",
  };
}

function summarize(outcome: PayOutcome): string {
  switch (outcome.outcome) {
    case "paid":
      return [
        `paid: ${outcome.amount} (smallest units) of asset ${outcome.asset} on ${outcome.network} to ${outcome.payee}, from ${outcome.payer}.`,
        `transaction: ${outcome.transaction ?? "none reported by the server"}`,
        describeResource(outcome.resource),
      ].join("\n");
    case "free":
      return [`not paid: the resource asked for no payment.`, describeResource(outcome.resource)].join("\n");
    case "unpayable":
      return `unpayable (${outcome.code}${outcome.setting === null ? "" : `, setting ${outcome.setting}`}): ${outcome.message}. Nothing was signed.`;
    case "failed":
      return `failed (${outcome.code}): ${outcome.message}`;
  }
}

function describeResource(resource: ResourceSnapshot): string {
  const head = `resource: ${resource.status} ${resource.contentType ?? "(no content type)"}, ${resource.bytes} bytes${resource.truncated ? " (truncated)" : ""}`;
  return resource.encoding === "text"
    ? `${head}\n\n${resource.body}`
    : `${head}, binary: base64 in the structured content`;
}
