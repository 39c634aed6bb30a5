// A deploy gate: a short fixed load whose limits are thresholds; k6 exits 99 when one fails, which fails the pipeline step.
// k6 run -e BASE_URL=$STAGING_URL -e MODEL=my-model -e TTFT_P95_MS=800 examples/deploy-gate.js || exit $?
import llm from 'k6/x/llm';

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
