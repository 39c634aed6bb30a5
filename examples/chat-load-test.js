// A chat load test with thresholds: 8 users for 20 s against an OpenAI-compatible endpoint.
// k6 run -e BASE_URL=http://127.0.0.1:8000/v1 -e MODEL=my-model examples/chat-load-test.js
import llm from 'k6/x/llm';

export const options = {
  scenarios: { chat: { executor: 'constant-vus', vus: Number(__ENV.VUS || 8), duration: __ENV.DURATION || '20s' } },
  thresholds: {
    // The llm_* metrics are registered by k6/x/llm: thresholds work on them as on any custom metric.
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
