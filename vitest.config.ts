import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests start real servers and streams; two cores, so keep file parallelism modest.
    maxWorkers: 2,
    minWorkers: 1,
  },
});
