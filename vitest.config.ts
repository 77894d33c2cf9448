import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
    // Two files at once, not vitest's default of one per core less one (one, on two cores): many
    // files spend their time waiting on what they start (servers, Chromium, Redis, tsc, reconnect
    // delays), so the second file uses a core the first leaves idle. On two cores: 370 s, from 584 s.
    maxWorkers: 2,
  },
});
