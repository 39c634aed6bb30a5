import { defineConfig } from 'vitest/config';

// Timing comparisons run in a group of their own, after every other test file: on two cores, a
// client measured while other test files load the machine reads TTFT late, and the simulator's
// token deadlines slip, because of the load, not because of the code under test.
export const ALONE = [
  'test/e2e/accuracy.test.ts', 'test/sim/server-timing.test.ts', 'test/e2e/split.test.ts', 'test/e2e/sessions.test.ts',
  'test/examples.test.ts',
  // The simulator's own physics against its model (prefix-cache hit TTFT, noise stalls): its timers slip under load.
  'test/sim/server-prefix-cache.test.ts', 'test/sim/server-noise.test.ts',
  // Two runs' client TTFTs compared within the simulator's noise: load from other files moved one 2.8% (CI).
  'test/e2e/noise-gate.test.ts',
  // Its capacity in requests/s stands on steps that are not client-bound: a cell read while other files load the
  // client core can be, and then rightly decides nothing (CI, 2026-12-05: the 20 req/s step left out).
  'test/e2e/rate.test.ts',
  'test/e2e/rate-search.test.ts',
  'test/e2e/trace-search.test.ts',
  // Each searched step of agents judged against the server's own token times: a step read while other files load the
  // client core can be client-bound, and then decides nothing.
  'test/e2e/agentic.test.ts',
  // The real vLLM and SGLang servers each take a core and about 4.5 GB: never two at once, nor beside a timing test.
  'test/e2e/vllm-server.test.ts', 'test/e2e/sglang-server.test.ts', 'test/e2e/agentic-vllm.test.ts',
  'test/e2e/agentic-sglang.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests start real servers and streams; two cores, so keep file parallelism modest.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        extends: true,
        test: { name: 'main', include: ['test/**/*.test.ts'], exclude: ALONE, sequence: { groupOrder: 0 } },
      },
      // One file at a time as well: the accuracy test's k6 loads the client core,
      // and the simulator's timing test measured beside them read a TTFT 28% late in one CI run.
      // (vitest 3.2 ignores fileParallelism and maxWorkers in a project; a single fork is honoured.)
      {
        extends: true,
        test: {
          name: 'timing', include: ALONE, sequence: { groupOrder: 1 }, poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});
