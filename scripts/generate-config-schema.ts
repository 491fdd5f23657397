// Writes config/gateway.schema.json from the config's zod schema (npm run config-schema).
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderConfigJsonSchema } from "../src/config/buildConfigJsonSchema.js";

const target = fileURLToPath(new URL("../config/gateway.schema.json", import.meta.url));
await writeFile(target, renderConfigJsonSchema());
console.log(`wrote ${target}`);
