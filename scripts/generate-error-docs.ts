// Writes docs/errors.md and the error table of docs/staking-backend.md from the error catalogues (npm run docs).
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderErrorsReference } from "../src/protocol/renderErrorsReference.js";
import { renderStakingErrorsSection } from "../src/staking/renderStakingErrorsSection.js";

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

for (const [path, render] of [
  ["../docs/errors.md", () => renderErrorsReference()],
  ["../docs/staking-backend.md", renderStakingErrorsSection],
] as const) {
  const target = at(path);
  await writeFile(target, render(await readFile(target, "utf8")));
  console.log(`wrote ${target}`);
}
