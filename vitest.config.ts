import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // Examples import the package by name, as users do; tests run them against the source.
    alias: [
      {
        find: /^x402-gateway\/fetch$/,
        replacement: fileURLToPath(new URL("./src/adapters/fetch.ts", import.meta.url)),
      },
      {
        find: /^x402-gateway\/hono$/,
        replacement: fileURLToPath(new URL("./src/adapters/hono.ts", import.meta.url)),
      },
      {
        find: /^x402-gateway\/fastify$/,
        replacement: fileURLToPath(new URL("./src/adapters/fastify.ts", import.meta.url)),
      },
      { find: /^x402-gateway$/, replacement: fileURLToPath(new URL("./src/index.ts", import.meta.url)) },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Redis for the suites that need it, and no process left running after the run.
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites start real servers (anvil, facilitator, upstreams); two cores are all we get.
    maxWorkers: 2,
    pool: "forks",
  },
});
