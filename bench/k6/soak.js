// The soak benchmark's client script (bench/soak.ts): N users, each streaming requests back to back through the
// suite's stream module (dist/llm.js) on a stock k6 until the scenario's maxDuration. Runs in k6.
// It counts only (soak_requests, soak_failed, soak_tokens) and pushes no llm_* sample (deferMetrics, never pushed):
// k6 keeps every Trend value for its end-of-test summary, so per-token samples would grow k6's memory by design
// and hide a leak in the client. A failure is a record that did not complete, a status not 200, a transport error
// (errorCode) or not exactly TOKENS output tokens (the usage's completion_tokens); the first few per user are logged.
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { sleep } from 'k6';
import llm from '../../dist/llm.js';

export const options = {
  scenarios: {
    soak: {
      executor: 'per-vu-iterations', vus: Number(__ENV.N), iterations: 1000000000, maxDuration: __ENV.DURATION,
      gracefulStop: '30s',
    },
  },
};

const requests = new Counter('soak_requests');
const failed = new Counter('soak_failed');
const tokens = new Counter('soak_tokens');
const TOKENS = Number(__ENV.TOKENS);
const body = JSON.stringify({
  model: __ENV.MODEL, stream: true, stream_options: { include_usage: true }, max_tokens: TOKENS, ignore_eos: true,
  messages: [{ role: 'user', content: 'hi' }],
});
let logged = 0;

export default async function () {
  const res = await llm.stream({
    url: `${__ENV.BASE_URL}/chat/completions`, headers: { 'Content-Type': 'application/json' }, body,
    timeout: '120s', requestedOutputTokens: TOKENS, deferMetrics: true,
  });
  const rec = res.record;
  const count = rec.outcome === 'completed' ? rec.outputTokens : rec.outputTokensSeen;
  requests.add(1);
  tokens.add(count);
  const ok = rec.outcome === 'completed' && res.status === 200 && res.errorCode === '' && count === TOKENS;
  if (ok) return;
  failed.add(1);
  if (logged++ < 3) {
    console.error('SOAK_FAIL ' + JSON.stringify({
      vu: exec.vu.idInTest, iter: exec.vu.iterationInScenario, outcome: rec.outcome, status: res.status,
      errorCode: res.errorCode, error: res.error || rec.errorMessage || '', errorKind: rec.errorKind,
      tokens: count, tokenSource: rec.outputTokenSource,
    }));
  }
  // A failing endpoint answers at once: pace the retries instead of spinning.
  sleep(1);
}
