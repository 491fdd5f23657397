import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Suites start real servers (anvil, facilitator, upstreams); two cores are all we get.
    maxWorkers: 2,
    pool: "forks",
  },
});
