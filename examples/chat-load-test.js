// A chat load test with thresholds: 8 users for 20 s against an OpenAI-compatible endpoint.
// Runs on a stock k6 (>= 1.0) with the measuring agent beside it, which streams and times each request:
//   npm run build && npm run agent -- --port 7070     # builds dist/llm.js; the agent prints its URL and stays up
//   k6 run -e LLM_AGENT=http://127.0.0.1:7070 -e BASE_URL=http://127.0.0.1:8000/v1 \
//     -e MODEL=my-model examples/chat-load-test.js
// k6 reads ../dist/llm.js relative to this file;
// a copy of dist/llm.js beside your own script is imported as './llm.js'.
import llm from '../dist/llm.js';

export const options = {
  scenarios: { chat: { executor: 'constant-vus', vus: Number(__ENV.VUS || 8), duration: __ENV.DURATION || '20s' } },
  thresholds: {
    // The llm_* metrics are registered by llm.js: thresholds work on them as on any custom metric.
    llm_ttft: ['p(95)<2000'],
    llm_decode_speed: ['avg>10'],
    llm_request_ok: ['rate>=0.99'],
  },
};

const body = JSON.stringify({
  model: __ENV.MODEL || 'my-model',
  stream: true,
  stream_options: { include_usage: true }, // token counts from the server, not counted chunks
  max_tokens: 128,
  messages: [{ role: 'user', content: 'Explain continuous batching in two paragraphs.' }],
});

export default async function () {
  await llm.stream({
    url: `${__ENV.BASE_URL}/chat/completions`,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${__ENV.API_KEY || ''}` },
    body,
    timeout: '120s',
    idleTimeout: '30s',
    requestedOutputTokens: 128,
  });
}
