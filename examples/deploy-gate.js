// A deploy gate: a short fixed load whose limits are thresholds; k6 exits 99 when one fails, which fails the pipeline
// step. Runs on a stock k6 (>= 1.0) with the measuring agent beside it, which streams and times each request:
//   npm run build && npm run agent -- --port 7070     # builds dist/llm.js; the agent prints its URL and stays up
//   k6 run -e LLM_AGENT=http://127.0.0.1:7070 -e BASE_URL=$STAGING_URL \
//     -e MODEL=my-model -e TTFT_P95_MS=800 examples/deploy-gate.js || exit $?
// k6 reads ../dist/llm.js relative to this file;
// a copy of dist/llm.js beside your own script is imported as './llm.js'.
import llm from '../dist/llm.js';

export const options = {
  scenarios: { gate: { executor: 'per-vu-iterations', vus: 4, iterations: 3, maxDuration: '2m' } },
  thresholds: {
    llm_ttft: [`p(95)<${__ENV.TTFT_P95_MS || 800}`],
    llm_tpot: [`p(95)<${__ENV.TPOT_P95_MS || 60}`],
    llm_request_ok: ['rate>=0.99'],
  },
};

export default async function () {
  await llm.stream({
    url: `${__ENV.BASE_URL}/chat/completions`,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: __ENV.MODEL || 'my-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Write a haiku about latency.' }],
    }),
    timeout: '60s',
  });
}
