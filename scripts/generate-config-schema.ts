// Writes config/gateway.schema.json, docs/config-reference.md and docs/middleware-options.md from the config's zod schema (npm run config-schema).
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderConfigJsonSchema } from "../src/config/buildConfigJsonSchema.js";
import {
  renderConfigReference,
  renderMiddlewareOptionsReference,
} from "../src/config/renderConfigReference.js";

for (const [path, text] of [
  ["../config/gateway.schema.json", renderConfigJsonSchema()],
  ["../docs/config-reference.md", renderConfigReference()],
  ["../docs/middleware-options.md", renderMiddlewareOptionsReference()],
] as const) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  await writeFile(target, text);
  console.log(`wrote ${target}`);
}
