import { renderErrorTable } from "../common/renderErrorTable.js";
import { replaceMarkedRegion } from "../common/replaceMarkedRegion.js";
import { STAKING_ERRORS } from "./errors.js";

/**
 * `docs/staking-backend.md` with its error table (between `<!-- errors:start -->` and `<!-- errors:end -->`)
 * generated from {@link STAKING_ERRORS} (`npm run docs`; a test keeps it fresh). The prose around it is the page's own.
 */
export function renderStakingErrorsSection(page: string): string {
  return replaceMarkedRegion(page, "errors", renderErrorTable(STAKING_ERRORS));
}
