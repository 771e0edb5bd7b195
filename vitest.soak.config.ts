import { defineConfig } from "vitest/config";

/** `npm run test:soak`: heavier variants of the reliability tests, one file at a time. */
export default defineConfig({
  test: {
    include: ["test/**/*.soak.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
