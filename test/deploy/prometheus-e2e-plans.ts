// The settings and plans test/deploy/prometheus-e2e.test.ts runs: fixed simulator timing (a few hundred ms per
// request), k6 pushing every second, one plan per dashboard row. Runs in Node (vitest).


export const TTFT_MS = 200;
export const ITL_MS = 10;
export const OUTPUT = 16;
export const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
export const TESTID = `e2e-prom-${process.pid}`;
export const FAST_SCHEDULE = {
  prefillTokensPerSecond: 1_000_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 2, gapSeconds: 0.3,
};
export const SCRAPE_SECONDS = 1;

export const SWEEP_PLAN = {
  sweep: { contexts: [1024], concurrencies: [1, 2], rounds: 2, outputTokens: OUTPUT }, schedule: FAST_SCHEDULE,
  monitor: { intervalSeconds: 0.5 },
};
export const CAPACITY_IDS = [
  'code_completion', 'short_chatbot', 'general_chatbot', 'long_document', 'coding_assistant',
];
export const CAPACITY_PLAN = {
  capacity: {
    useCases: CAPACITY_IDS,
    concurrencies: Object.fromEntries(CAPACITY_IDS.map((id) => [id, [2]])),
    outputTokens: Object.fromEntries(CAPACITY_IDS.map((id) => [id, OUTPUT])),
    rounds: 1,
  },
  // Each user sends a warm-up request (tag phase=warmup, left out of the dashboard's statistics) and
  // a measured one: the slot holds both rounds of the 96K prompts, whose tokenizing alone takes ~0.4 s
  // on an idle machine. A CI run once cut the last 96K cell's measured requests at 5 s, with the
  // machine loaded by the other test files: 8 s leaves room.
  schedule: { ...FAST_SCHEDULE, minCellSeconds: 8 },
  monitor: { intervalSeconds: 0.5 },
};
/** A cell whose every request fails (a simulator answering 503): the error panels get real errors. */
export const FAULT_PLAN = {
  sweep: { contexts: [512], concurrencies: [2], rounds: 1, outputTokens: OUTPUT }, schedule: FAST_SCHEDULE,
  monitor: { enabled: false },
};
/**
 * Identical prompts on a simulator with its performance model and prefix cache: the responses' usage carries cached
 * tokens (llm_cached_tokens) and the monitor the server's hit counters, for the prefix-cache panel.
 */
export const PREFIX_PLAN = {
  // Rounds enough for a few seconds of requests: the monitor's counters need two pushes a second apart to have a rate.
  sweep: { contexts: [768], concurrencies: [2], rounds: 12, outputTokens: 32 }, prompts: { mode: 'shared-prefix' },
  schedule: { ...FAST_SCHEDULE, minCellSeconds: 4 }, monitor: { intervalSeconds: 0.5 },
};
/** Three users' conversations on the prefix-caching simulator, for the Sessions row (turns, hit rate, active users). */
export const SESSIONS_PLAN = {
  sessions: {
    useCases: ['code_completion'], users: { code_completion: [3] }, rampSeconds: 1, warmupSeconds: 1, holdSeconds: 4,
    models: {
      code_completion: {
        turns: 3, growthTokens: 64, outputTokens: OUTPUT, thinkTime: { distribution: 'constant', seconds: 0.2 },
      },
    },
  },
  monitor: { intervalSeconds: 0.5 },
};
/** Poisson arrivals for the Open-loop row: its schedule lag, TTFT from the intended send and achieved rate. */
export const RATE_PLAN = {
  rate: { useCases: ['code_completion'], rates: [10], durationSeconds: 4 }, schedule: FAST_SCHEDULE,
  monitor: { enabled: false },
};
/** Embeddings at 1 and 2 users, batches of 2 (the embed row): a few seconds, enough pushes for a rate. */
export const EMBED_PLAN = {
  embed: { kind: 'embeddings', inputTokens: [64], batchSizes: [2], concurrencies: [1, 2], rounds: 6 },
  schedule: FAST_SCHEDULE, monitor: { enabled: false },
};
/**
 * A cell sent as native histograms (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true) for the collapsed row. Eight
 * rounds, about 3 s: the panels' rate() over a window needs two pushes of each series, and a 1 s cell pushed once
 * when five k6 processes shared the CI machine's two cores.
 */
export const NATIVE_PLAN = {
  sweep: { contexts: [2048], concurrencies: [2], rounds: 16, outputTokens: OUTPUT }, schedule: FAST_SCHEDULE,
  monitor: { enabled: false },
  // On the prefix-caching simulator, sixteen groups' 1K prefixes dealt round robin: the first eight rounds miss them
  // and the rest hit them, each over several pushes (NATIVE_PUSH_INTERVAL), so the native row's cache-hit and
  // cache-miss panels have rates. With eight groups the four rounds of misses (about 0.8 s) fell into one 1 s push in a
  // CI run, and rate() over one sample has none.
  prompts: { prefixGroups: { groups: 16, prefixTokens: 1024 } },
};
export const NATIVE_PUSH_INTERVAL = '500ms';
