// A custom script that reads each request's record: checks on it, a metric of its own, and prompts of two lengths told
// apart by a tag. Runs on a stock k6 (>= 1.0) with the measuring agent beside it, which streams and times each request:
//   npm run build && npm run agent -- --port 7070     # builds dist/llm.js; the agent prints its URL and stays up
//   k6 run -e LLM_AGENT=http://127.0.0.1:7070 -e BASE_URL=http://127.0.0.1:8000/v1 \
//     -e MODEL=my-model examples/custom-record.js
// k6 reads ../dist/llm.js relative to this file;
// a copy of dist/llm.js beside your own script is imported as './llm.js'.
import { check } from 'k6';
import { Trend } from 'k6/metrics';
import llm from '../dist/llm.js';

export const options = {
  scenarios: { mixed: { executor: 'per-vu-iterations', vus: 2, iterations: 4, maxDuration: '2m' } },
  thresholds: { 'llm_ttft{prompt:long}': ['p(95)<5000'], checks: ['rate==1'] },
};

// Time from the first token to the last one, ms: a figure of this script's own, from the record.
const generation = new Trend('generation_time', true);

const PROMPTS = {
  short: 'Name three prime numbers.',
  long: 'Summarise the following text. '.concat('Load tests measure what users feel. '.repeat(200)),
};

export default async function () {
  const prompt = __ITER % 2 === 0 ? 'short' : 'long';
  const { record, status } = await llm.stream({
    url: `${__ENV.BASE_URL}/chat/completions`,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: __ENV.MODEL || 'my-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 32,
      messages: [{ role: 'user', content: PROMPTS[prompt] }],
    }),
    timeout: '60s',
    requestedOutputTokens: 32,
    tags: { prompt }, // on every sample of this request, llm_* included
  });
  check(record, {
    'status 200': () => status === 200,
    'completed': (r) => r.outcome === 'completed',
    'all tokens arrived': (r) => r.outcome === 'completed' && r.outputTokens === r.requestedOutputTokens,
    'one ITL per token after the first': (r) => r.outcome === 'completed' && r.itlMs.length === r.outputTokens - 1,
  });
  if (record.outcome === 'completed') generation.add(record.e2eMs - record.ttftMs, { prompt });
  else console.warn(`${record.errorKind}: ${record.errorMessage}`);
}
