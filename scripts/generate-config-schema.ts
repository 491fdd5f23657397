// Writes config/gateway.schema.json and docs/config-reference.md from the config's zod schema (npm run config-schema).
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderConfigJsonSchema } from "../src/config/buildConfigJsonSchema.js";
import { renderConfigReference } from "../src/config/renderConfigReference.js";

for (const [path, text] of [
  ["../config/gateway.schema.json", renderConfigJsonSchema()],
  ["../docs/config-reference.md", renderConfigReference()],
] as const) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
