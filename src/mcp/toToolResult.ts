import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PAYER_ENV } from "./errors.js";
import type { PayOutcome, SignedPayment } from "./PayOutcome.js";
import type { ResourceSnapshot } from "./readResource.js";

/** An outcome as an MCP tool result: a text summary for the model, the outcome as structured content. */
export function toToolResult(outcome: PayOutcome): CallToolResult {
  return {
    content: [{ type: "text", text: summarize(outcome) }],
    structuredContent: outcome as unknown as Record<string, unknown>,
    // paid_unconfirmed is not an error: an agent that retries errors would pay a second time.
    isError: outcome.outcome === "unpayable" || outcome.outcome === "failed",
  };
}

function summarize(outcome: PayOutcome): string {
  switch (outcome.outcome) {
    case "paid":
      return [
        `paid: ${describeSigned(outcome)}`,
        `transaction: ${outcome.transaction}`,
        describeResource(outcome.resource),
      ].join("\n");
    case "paid_unconfirmed":
      return [
        `paid, settlement not confirmed (${outcome.code}): ${outcome.message}.`,
        `signed: ${describeSigned(outcome)} Do not pay this URL again without checking the nonce on chain.`,
        ...(outcome.resource === undefined ? [] : [describeResource(outcome.resource)]),
      ].join("\n");
    case "free":
      return [`not paid: the resource asked for no payment.`, describeResource(outcome.resource)].join("\n");
    case "unpayable":
      return `unpayable (${outcome.code}${outcome.setting === null ? "" : `, setting ${outcome.setting}`}): ${outcome.message}. Nothing was signed.`;
    case "failed":
      return [
        `failed (${outcome.code}): ${outcome.message}`,
        ...(outcome.signed ? [`signed: ${describeSigned(outcome as SignedPayment)}`] : []),
        ...(outcome.resource === undefined ? [] : [describeResource(outcome.resource)]),
      ].join("\n");
  }
}

function describeSigned(signed: SignedPayment): string {
  return `${signed.amount} (smallest units) of asset ${signed.asset} on ${signed.network} to ${signed.payee}, from ${signed.payer}${signed.nonce === undefined ? "" : `; nonce ${signed.nonce}, valid before ${signed.validBefore}`}.`;
}

function describeResource(resource: ResourceSnapshot): string {
  const head = `resource: ${resource.status} ${resource.contentType ?? "(no content type)"}, ${resource.bytes} bytes${resource.truncated ? ` (truncated at ${resource.bytes} bytes, ${PAYER_ENV.maxBodyBytes}: the rest was not read)` : ""}`;
  return resource.encoding === "text"
    ? `${head}\n\n${resource.body}`
    : `${head}, binary: base64 in the structured content`;
}
