// The engine benchmark's staggered cell (bench/engine-overhead.ts --stagger-ms): N users whose first requests are
// spaced STAGGER_MS apart, each then sending ROUNDS requests back to back, through the suite's stream module
// (dist/llm.js) on a stock k6. Users in service do not all start in the same instant; this measures the client's
// TTFT without the burst of a sweep cell's first round. Runs in k6.
import exec from 'k6/execution';
import { sleep } from 'k6';
import llm from '../../dist/llm.js';

const users = Number(__ENV.USERS);
const rounds = Number(__ENV.ROUNDS);
const tokens = Number(__ENV.TOKENS);
const staggerMs = Number(__ENV.STAGGER_MS);

export const options = {
  scenarios: {
    staggered: { executor: 'per-vu-iterations', vus: users, iterations: rounds, maxDuration: '30m' },
  },
};

const body = JSON.stringify({
  model: __ENV.MODEL, stream: true, stream_options: { include_usage: true }, max_tokens: tokens, ignore_eos: true,
  messages: [{ role: 'user', content: 'Explain continuous batching in two paragraphs.' }],
});

export default async function () {
  if (exec.vu.iterationInScenario === 0) sleep(((exec.vu.idInTest - 1) * staggerMs) / 1000);
  await llm.stream({
    url: `${__ENV.BASE_URL}/chat/completions`, headers: { 'Content-Type': 'application/json' }, body,
    timeout: '600s', requestedOutputTokens: tokens, tags: { cell: 'staggered' },
  });
}
