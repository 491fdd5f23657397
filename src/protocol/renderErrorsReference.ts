import { renderErrorTable } from "../common/renderErrorTable.js";
import { ERROR_CATALOGUE } from "./errors.js";

/**
 * `docs/errors.md`: every code of the gateway's error catalogue with its status and when it is answered,
 * generated from the catalogue itself (`npm run docs`; a test keeps it fresh).
 */
export function renderErrorsReference(): string {
  return [
    "# Errors of the paywall",
    "",
    'Every error has one flat body `{ "error": "<code>", "message": "…", "details": {…} }`; a 402\'s body is',
    "the `PaymentRequired` object (its `error` is the code) plus `message` and `details`. Generated from the",
    "catalogue in `src/protocol/errors.ts` (`ERROR_CATALOGUE`) by `npm run docs`; a test keeps it fresh.",
    "",
    renderErrorTable(ERROR_CATALOGUE),
    "",
    "Nothing is ever served unpaid: every failure above happens before the handler runs or drops what it wrote.",
    "",
    "The MCP payer (`x402-pay-mcp`) is a client, not the paywall: its outcome codes (`unpayable`,",
    "`paid_unconfirmed`, `failed`) are listed in [mcp-payer.md](mcp-payer.md#outcomes).",
    "",
  ].join("\n");
}
