import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel forks, each with its own database / Redis prefix.
    pool: "forks",
    maxWorkers: 2,
  },
});
