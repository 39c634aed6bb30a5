import { defineConfig } from 'vitest/config';
import { TIMING } from './vitest.config';

// `npm run test:quick`: the unit tier, in about a minute and a half. No k6 run, no real server, no browser, no
// Prometheus, none of the timing group: what `npm test` adds to it is every end-to-end file (test/e2e/, the Grafana
// stack's, the HTML report's in Chromium) and the timing lanes that run after it (vitest.config.ts TIMING). `npm test`
// still runs all.
export const NOT_QUICK = [
  'test/e2e/**', 'test/deploy/prometheus-e2e.test.ts', 'test/report/render-html.test.ts', ...TIMING,
];

export default defineConfig({
  test: {
    name: 'quick',
    include: ['test/**/*.test.ts'],
    exclude: NOT_QUICK,
    testTimeout: 60_000,
    globalSetup: ['test/run-tmpdir.ts'],
    hookTimeout: 60_000,
    maxWorkers: 2,
    minWorkers: 1,
    // Each worker keeps its modules from one file to the next: no test here mocks a module or changes another's
    // state, and re-importing them per file cost a quarter of the tier's time (120 s against 94 s, 2 cores).
    poolOptions: { forks: { isolate: false } },
  },
});
